-- Marks items of one recovery shard as written through but not yet persisted (Redis 6.2
-- compatible). Every call gets a stamp from this Redis server's clock, in microseconds, strictly
-- above every stamp the shard issued before, even if the server's clock stepped back: a mark's
-- score therefore says which call wrote it last, whatever the clocks of the nodes that call.
-- KEYS: 1 the shard's marks (sorted set), 2 the shard's last stamp (string)
-- ARGV: the members to mark
-- Returns the stamp every member is now scored with.
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000000 + tonumber(time[2])
local last = tonumber(redis.call('GET', KEYS[2]) or '0')
if now <= last then
  now = last + 1
end
-- Numbers passed to redis.call become text with 14 significant digits: format them whole.
local score = string.format('%.0f', now)
redis.call('SET', KEYS[2], score)
for i = 1, #ARGV, 500 do
  local scored = {}
  for j = i, math.min(i + 499, #ARGV) do
    scored[#scored + 1] = score
    scored[#scored + 1] = ARGV[j]
  end
  redis.call('ZADD', KEYS[1], unpack(scored))
end
return now
