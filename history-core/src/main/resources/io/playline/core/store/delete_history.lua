-- Deletes items from one user's history in one atomic step (Redis 6.2 compatible): raises each
-- item's tombstone to the delete time (never lowers one), removes the items from the timeline and
-- the records, and keeps the item tombstones bounded. write_history.lua then refuses any event of
-- an item whose view time is not after its tombstone.
-- Redis time is O(items of this call + tombstones it removes), never O(tombstones held): the order
-- index (KEYS[4], item member scored by its tombstone time) finds expired and oldest tombstones by
-- rank, and a refused delete reads one entry of it. A user keeps at
-- most ARGV[4] item tombstones. Past that, only tombstones older than ARGV[5] (the safe age: by then
-- the delete is in HBase through its write-back or the recovery sweep) are evicted, never one this
-- call names; if that is not enough the whole delete is refused before anything is applied. An
-- eviction raises the user's floor '~e' (never indexed, never evicted) to the newest evicted delete
-- time: write_history.lua refuses an event not after it for an item with no record in Redis, as the
-- evicted tombstone did. Clear tombstones '*' and 'b<business>' are never evicted, and never
-- indexed. A tombstones hash written before the index existed is indexed once, by HSCAN, on its
-- user's first delete.
-- KEYS: 1 timeline zset, 2 records hash, 3 tombstones hash, 4 tombstone order zset
-- ARGV: 1 delete time ms, 2 tombstone ttl ms, 3 max items of a timeline, 4 max item tombstones,
--   5 safe age ms, then members (at most ARGV[4] of them, distinct)
-- Returns the number of item tombstones evicted by the cap (expired ones not counted), or, when the
-- delete is refused (nothing applied), minus the milliseconds until enough tombstones reach the
-- safe age (at least 1).
local timeline, records, tombstones, order = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local now, ttl, maxItems = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local cap, safeAge = tonumber(ARGV[4]), tonumber(ARGV[5])
local first = 6
if #ARGV - first + 1 > cap then
  return redis.error_reply('delete_history: ' .. (#ARGV - first + 1) .. ' items, more than the cap ' .. cap)
end

-- Applies redis.call(command, key, ...) to list[1..#list] 500 at a time (unpack's limit is ~8000).
local function chunked(command, key, list)
  for j = 1, #list, 500 do
    redis.call(command, key, unpack(list, j, math.min(j + 499, #list)))
  end
end

if redis.call('EXISTS', order) == 0 and redis.call('EXISTS', tombstones) == 1 then
  -- No index: a hash from before it (or holding only clear tombstones and the floor).
  local cursor = '0'
  repeat
    local reply = redis.call('HSCAN', tombstones, cursor, 'COUNT', 1000)
    cursor = reply[1]
    local fields = reply[2]
    for i = 1, #fields, 2 do
      if string.match(fields[i], '^%d+:') then
        redis.call('ZADD', order, fields[i + 1], fields[i])
      end
    end
  until cursor == '0'
  -- Lives no longer than the hash it indexes, even if this delete is refused.
  local left = redis.call('PTTL', tombstones)
  if left > 0 then
    redis.call('PEXPIRE', order, left)
  end
end
-- Expired tombstones cover nothing any more (events older than the TTL are clamped past them).
local expired = redis.call('ZRANGEBYSCORE', order, '-inf', '(' .. (now - ttl), 'LIMIT', 0, #ARGV + 16)
chunked('HDEL', tombstones, expired)
chunked('ZREM', order, expired)

-- The cap, decided before anything of this call is applied.
local named, namedRanks, fresh = {}, {}, 0
for i = first, #ARGV do
  if not named[ARGV[i]] then
    named[ARGV[i]] = true
    local rank = redis.call('ZRANK', order, ARGV[i])
    if rank then
      namedRanks[#namedRanks + 1] = rank
    else
      fresh = fresh + 1
    end
  end
end
local excess = redis.call('ZCARD', order) + fresh - cap
local victims = {}
if excess > 0 then
  -- The victims are the oldest excess tombstones this call does not name (there are enough: the
  -- call names at most cap items). The newest of them is at the smallest rank r whose ranks 0..r
  -- hold excess unnamed ones; it alone decides, so a refusal reads one entry of the index, not excess.
  table.sort(namedRanks)
  local r = excess - 1
  for _, rank in ipairs(namedRanks) do
    if rank > r then break end
    r = r + 1
  end
  local last = tonumber(redis.call('ZRANGE', order, r, r, 'WITHSCORES')[2])
  if last >= now - safeAge then
    return -math.max(1, last + safeAge - now + 1)
  end
  -- Evicted: each tombstone is read here once, by the call that removes it.
  local oldest = redis.call('ZRANGE', order, 0, r)
  for i = 1, #oldest do
    if not named[oldest[i]] then
      victims[#victims + 1] = oldest[i]
    end
  end
  chunked('HDEL', tombstones, victims)
  chunked('ZREM', order, victims)
  if last > tonumber(redis.call('HGET', tombstones, '~e') or '-1') then
    redis.call('HSET', tombstones, '~e', last)
  end
end

-- A full timeline may have been trimmed into HBase: once smaller it must not claim completeness.
if redis.call('ZSCORE', timeline, '~c') and redis.call('ZCARD', timeline) >= maxItems then
  redis.call('ZREM', timeline, '~c')
  redis.call('ZADD', timeline, '+inf', '~w')
end
for i = first, #ARGV do
  local member = ARGV[i]
  if now > tonumber(redis.call('HGET', tombstones, member) or '-1') then
    redis.call('HSET', tombstones, member, ARGV[1])
    redis.call('ZADD', order, now, member)
  end
  redis.call('ZREM', timeline, member)
  redis.call('HDEL', records, member)
end
redis.call('PEXPIRE', tombstones, ttl)
redis.call('PEXPIRE', order, ttl)
return #victims
