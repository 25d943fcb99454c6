-- Deletes items from one user's history in one atomic step (Redis 6.2 compatible): raises each
-- item's tombstone to the delete time (never lowers one), removes the items from the timeline and
-- the records, and prunes tombstones past their TTL. write_history.lua then refuses any event of
-- an item whose view time is not after its tombstone.
-- KEYS: 1 timeline zset, 2 records hash, 3 tombstones hash
-- ARGV: 1 delete time ms, 2 tombstone ttl ms, 3 max items of a timeline, then members
-- Returns the number of items removed from the timeline.
local timeline, records, tombstones = KEYS[1], KEYS[2], KEYS[3]
local now, ttl, maxItems = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
-- A full timeline may have been trimmed into HBase: once smaller it must not claim completeness.
if redis.call('ZSCORE', timeline, '~c') and redis.call('ZCARD', timeline) >= maxItems then
  redis.call('ZREM', timeline, '~c')
  redis.call('ZADD', timeline, '+inf', '~w')
end
local removed = 0
for i = 4, #ARGV do
  local member = ARGV[i]
  if now > tonumber(redis.call('HGET', tombstones, member) or '-1') then
    redis.call('HSET', tombstones, member, ARGV[1])
  end
  removed = removed + redis.call('ZREM', timeline, member)
  redis.call('HDEL', records, member)
end
local fields = redis.call('HGETALL', tombstones)
for i = 1, #fields, 2 do
  if tonumber(fields[i + 1]) < now - ttl then
    redis.call('HDEL', tombstones, fields[i])
  end
end
redis.call('PEXPIRE', tombstones, ttl)
return removed
