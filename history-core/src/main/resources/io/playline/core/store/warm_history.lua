-- Warms one user's timeline with records read from HBase (Redis 6.2 compatible). Records apply as
-- in write_history.lua: one only replaces an older version of its item, and none that is not after
-- a delete/clear tombstone of its item, so a concurrent heartbeat or delete always wins. The paused
-- flag is not checked (warming restores history, it records nothing new) and no recovery marks are
-- written (the records are in HBase already). Then sets the warm marker, trims to the newest max
-- items and refreshes the TTL.
-- KEYS: 1 timeline zset, 2 records hash, 3 tombstones hash
-- ARGV: 1 max items (>= 2), 2 ttl ms, 3 '1' when the records are the user's whole HBase history,
--   then per record: member, view time ms, serialized record
-- Returns the number of records applied.
local timeline, records, tombstones = KEYS[1], KEYS[2], KEYS[3]
local maxItems, ttl, whole = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3] == '1'
local applied = 0
if redis.call('EXISTS', timeline, tombstones) == 0 then
  -- The common cold user: nothing in Redis to race with, so no per-record reads. The newest copy of
  -- an item given twice wins, as below; then one ZADD and one HSET per 500 records.
  local newest, order = {}, {}
  for i = 4, #ARGV, 3 do
    local member, viewTime = ARGV[i], tonumber(ARGV[i + 1])
    local seen = newest[member]
    if not seen then
      order[#order + 1] = member
    end
    if not seen or viewTime > tonumber(ARGV[seen + 1]) then
      newest[member] = i
    end
  end
  for j = 1, #order, 500 do
    local scores, fields = {}, {}
    for k = j, math.min(j + 499, #order) do
      local i = newest[order[k]]
      scores[#scores + 1] = ARGV[i + 1]
      scores[#scores + 1] = ARGV[i]
      fields[#fields + 1] = ARGV[i]
      fields[#fields + 1] = ARGV[i + 2]
    end
    redis.call('ZADD', timeline, unpack(scores))
    redis.call('HSET', records, unpack(fields))
  end
  applied = #order
else
  local clearAll = tonumber(redis.call('HGET', tombstones, '*') or '-1')
  for i = 4, #ARGV, 3 do
    local member, viewTime, record = ARGV[i], tonumber(ARGV[i + 1]), ARGV[i + 2]
    local business = string.match(member, '^(%d+):')
    local tomb = math.max(clearAll,
      tonumber(redis.call('HGET', tombstones, 'b' .. business) or '-1'),
      tonumber(redis.call('HGET', tombstones, member) or '-1'))
    if viewTime > tomb then
      local current = redis.call('ZSCORE', timeline, member)
      if not current or viewTime > tonumber(current) then
        redis.call('ZADD', timeline, viewTime, member)
        redis.call('HSET', records, member, record)
        applied = applied + 1
      end
    end
  end
end
-- A marker only ever weakens: a concurrent warm-up or trim may have left '~w' already.
local marker = '~w'
if whole and not redis.call('ZSCORE', timeline, '~w') then
  marker = '~c'
end
redis.call('ZREM', timeline, '~c', '~w')
redis.call('ZADD', timeline, '+inf', marker)
local size = redis.call('ZCARD', timeline)
if size > maxItems then
  local evicted = redis.call('ZRANGE', timeline, 0, size - maxItems - 1)
  redis.call('ZREMRANGEBYRANK', timeline, 0, size - maxItems - 1)
  for j = 1, #evicted, 500 do
    redis.call('HDEL', records, unpack(evicted, j, math.min(j + 499, #evicted)))
  end
  if marker == '~c' then
    redis.call('ZREM', timeline, '~c')
    redis.call('ZADD', timeline, '+inf', '~w')
  end
end
redis.call('PEXPIRE', timeline, ttl)
redis.call('PEXPIRE', records, ttl)
return applied
