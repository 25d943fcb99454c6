-- Deletes items from one user's history in one atomic step (Redis 6.2 compatible): raises each
-- item's tombstone to the delete time (never lowers one), removes the items from the timeline and
-- the records, and keeps the item tombstones bounded. write_history.lua then refuses any event of
-- an item whose view time is not after its tombstone.
-- Redis time is O(items of this call), never O(tombstones held): the order index (KEYS[4], item
-- member scored by its tombstone time) finds expired and oldest tombstones by rank. A user keeps at
-- most ARGV[4] item tombstones; past that the oldest are evicted (clear tombstones '*' and
-- 'b<business>' are never evicted, and never indexed). A tombstones hash written before the index
-- existed is indexed once, by HSCAN, on its user's first delete.
-- KEYS: 1 timeline zset, 2 records hash, 3 tombstones hash, 4 tombstone order zset
-- ARGV: 1 delete time ms, 2 tombstone ttl ms, 3 max items of a timeline, 4 max item tombstones,
--   then members
-- Returns the number of item tombstones evicted by the cap (expired ones not counted).
local timeline, records, tombstones, order = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local now, ttl, maxItems, cap = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
-- A full timeline may have been trimmed into HBase: once smaller it must not claim completeness.
if redis.call('ZSCORE', timeline, '~c') and redis.call('ZCARD', timeline) >= maxItems then
  redis.call('ZREM', timeline, '~c')
  redis.call('ZADD', timeline, '+inf', '~w')
end
if redis.call('EXISTS', order) == 0 and redis.call('EXISTS', tombstones) == 1 then
  -- No index: a hash from before it (or holding only clear tombstones, at most 7 fields).
  local cursor = '0'
  repeat
    local reply = redis.call('HSCAN', tombstones, cursor, 'COUNT', 1000)
    cursor = reply[1]
    local fields = reply[2]
    for i = 1, #fields, 2 do
      local field = fields[i]
      local first = string.sub(field, 1, 1)
      if first ~= '*' and first ~= 'b' then
        redis.call('ZADD', order, fields[i + 1], field)
      end
    end
  until cursor == '0'
end
for i = 5, #ARGV do
  local member = ARGV[i]
  if now > tonumber(redis.call('HGET', tombstones, member) or '-1') then
    redis.call('HSET', tombstones, member, ARGV[1])
    redis.call('ZADD', order, now, member)
  end
  redis.call('ZREM', timeline, member)
  redis.call('HDEL', records, member)
end
-- Expired tombstones: at most a few more than this call added, so the work stays O(call).
local expired = redis.call('ZRANGEBYSCORE', order, '-inf', '(' .. (now - ttl), 'LIMIT', 0, #ARGV + 16)
if #expired > 0 then
  redis.call('HDEL', tombstones, unpack(expired))
  redis.call('ZREM', order, unpack(expired))
end
-- The cap: the index held at most cap before this call, so at most this call's items go (more only
-- once, for a hash indexed above).
local evicted = 0
local excess = redis.call('ZCARD', order) - cap
if excess > 0 then
  for start = 0, excess - 1, 500 do
    local oldest = redis.call('ZRANGE', order, 0, math.min(499, excess - 1 - start))
    redis.call('HDEL', tombstones, unpack(oldest))
    redis.call('ZREM', order, unpack(oldest))
  end
  evicted = excess
end
redis.call('PEXPIRE', tombstones, ttl)
redis.call('PEXPIRE', order, ttl)
return evicted
