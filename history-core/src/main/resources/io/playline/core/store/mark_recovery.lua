-- Marks a delete or clear (uid:~<nonce>) in its recovery shard before its script runs, for the job's
-- sweep should its write-back be lost (HistoryControl; Redis 6.2 compatible). Writes are listed in the
-- recovery log instead (write_history.lua); releases before it marked every written item here.
-- Every call gets a stamp per shard from this Redis server's clock, in microseconds, strictly above
-- every stamp that shard issued before, even if the server's clock stepped back: a mark's score
-- therefore says which call wrote it last, whatever the clocks of the nodes that call. One call may
-- mark several shards when their keys are on this server.
-- KEYS: per shard, its marks (sorted set) then its last stamp (string)
-- ARGV: per shard in KEYS order, the number of its members, then the members
-- Returns each shard's stamp, in KEYS order; every member of a shard is now scored with it.
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000000 + tonumber(time[2])
local stamps = {}
local a = 1
for s = 1, #KEYS, 2 do
  local last = tonumber(redis.call('GET', KEYS[s + 1]) or '0')
  local stamp = now
  if stamp <= last then
    stamp = last + 1
  end
  -- Numbers passed to redis.call become text with 14 significant digits: format them whole.
  local score = string.format('%.0f', stamp)
  redis.call('SET', KEYS[s + 1], score)
  local first, count = a + 1, tonumber(ARGV[a])
  local past = first + count
  for i = first, past - 1, 500 do
    local scored = {}
    for j = i, math.min(i + 499, past - 1) do
      scored[#scored + 1] = score
      scored[#scored + 1] = ARGV[j]
    end
    redis.call('ZADD', KEYS[s], unpack(scored))
  end
  a = past
  stamps[#stamps + 1] = stamp
end
return stamps
