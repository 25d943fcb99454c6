-- Applies the events of one or more users; each user's events are applied atomically (the whole
-- call is). Redis 6.2 compatible (ZADD GT). In Redis Cluster all the users of one call share a hash slot.
-- On a single server the call also appends one entry to a recovery log (a stream) listing every
-- item it applied, after the writes and in the same atomic step: the node deletes the entry once
-- Kafka acknowledged the write-back records carrying those items, and the job's recovery sweep
-- persists the items of entries older than recovery.age. In a cluster the log has a slot of its own
-- and the writer appends the entry with a plain XADD instead.
-- KEYS: per user 4 keys: timeline zset, records hash, tombstones hash, paused flag; then, when
-- ARGV[3] is 1, the recovery log (stream)
-- ARGV: 1 max items kept, 2 ttl ms (both keys expire between 0.9 x ttl and ttl after the user's
-- last write), 3 whether to log (1) or not (0), then per user: its event count n, its uid, then per
-- event: member, view time ms, serialized record
-- Returns, per user in KEYS order, {paused, code_1 .. code_n} flattened into one array: paused is 1
-- when the user paused recording (nothing written); code is 0 when the event lost (older than the
-- stored record, or not after a delete/clear tombstone of its item, or, for an item with no record,
-- not after the user's eviction floor '~e' of delete_history.lua), 1 when it replaced the stored
-- record, 2 when it created it; then, when logging, the log entry's id, or 0 when no event applied
-- (nothing logged). The entry has one field, 'm': the applied items as 'uid:business:oid',
-- separated by spaces.
local maxItems = tonumber(ARGV[1])
local ttl = tonumber(ARGV[2])
local logging = tonumber(ARGV[3])
local out = {}
-- The items this call applied, as recovery-log members.
local logged = {}

-- One user's n events from ARGV[a]; appends the user's answer to out and what it applied to logged.
local function apply(timeline, records, tombstones, paused, uid, n, a)
  -- Most users are neither paused nor have tombstones: one EXISTS answers both for them.
  local special = redis.call('EXISTS', paused, tombstones) > 0
  if special and redis.call('EXISTS', paused) == 1 then
    out[#out + 1] = 1
    for i = 1, n do out[#out + 1] = 0 end
    return
  end
  out[#out + 1] = 0
  -- Read business tombstones once per business.
  local hasTombstones = special and redis.call('EXISTS', tombstones) == 1
  local clearAll, floor = -1, -1
  if hasTombstones then
    local times = redis.call('HMGET', tombstones, '*', '~e')
    clearAll, floor = tonumber(times[1] or '-1'), tonumber(times[2] or '-1')
  end
  local businessTombs = {}
  local changed = false
  local grew = false
  for i = 0, n - 1 do
    local base = a + i * 3
    local member, viewTime, record = ARGV[base], tonumber(ARGV[base + 1]), ARGV[base + 2]
    local tomb = clearAll
    if hasTombstones then
      local business = string.match(member, '^(%d+):')
      local businessTomb = businessTombs[business]
      if businessTomb == nil then
        businessTomb = tonumber(redis.call('HGET', tombstones, 'b' .. business) or '-1')
        businessTombs[business] = businessTomb
      end
      tomb = math.max(tomb, businessTomb, tonumber(redis.call('HGET', tombstones, member) or '-1'))
    end
    local code = 0
    if viewTime > tomb and not hasTombstones then
      -- No tombstone and no floor to check (most users): ZADD GT CH adds the item or raises its
      -- time in one call (1 when it did) and HSET's answer tells a new item (1) from a replaced one
      -- (0), so the common heartbeat is two calls, not three; only a tie or an older event (0)
      -- reads the stored time.
      if redis.call('ZADD', timeline, 'GT', 'CH', viewTime, member) == 1 then
        if redis.call('HSET', records, member, record) == 1 then
          code = 2
          grew = true
        else
          code = 1
        end
        changed = true
      elseif viewTime == tonumber(redis.call('ZSCORE', timeline, member)) then
        redis.call('HSET', records, member, record)
        code = 1
        changed = true
      end
    elseif viewTime > tomb then
      local current = redis.call('ZSCORE', timeline, member)
      if not current then
        -- Not after the floor '~e' (delete_history.lua): its item's tombstone may have been evicted.
        if viewTime > floor then
          code = 2
          grew = true
        end
      elseif viewTime >= tonumber(current) then
        code = 1
      end
      if code > 0 then
        redis.call('ZADD', timeline, viewTime, member)
        redis.call('HSET', records, member, record)
        changed = true
      end
    end
    out[#out + 1] = code
    if code > 0 then
      logged[#logged + 1] = uid .. ':' .. member
    end
  end
  if changed then
    local size = grew and redis.call('ZCARD', timeline) or 0
    if size > maxItems then
      local evicted = redis.call('ZRANGE', timeline, 0, size - maxItems - 1)
      redis.call('ZREMRANGEBYRANK', timeline, 0, size - maxItems - 1)
      for j = 1, #evicted, 500 do
        redis.call('HDEL', records, unpack(evicted, j, math.min(j + 499, #evicted)))
      end
    end
    -- Push the TTL forward only when the timeline grew (it may be new) or a tenth of the TTL has
    -- passed since the last push: two PEXPIREs per heartbeat (and their AOF records) saved. A new
    -- or recreated records hash has no TTL (PTTL -1), so it is always caught here.
    if grew or redis.call('PTTL', records) < ttl - math.floor(ttl / 10) then
      redis.call('PEXPIRE', timeline, ttl)
      redis.call('PEXPIRE', records, ttl)
    end
  end
end

-- Check the shape before touching anything: a malformed call writes nothing.
if logging ~= 0 and logging ~= 1 then
  return redis.error_reply('write_history: no logging flag (0 or 1) at ARGV[3]')
end
local users = (#KEYS - logging) / 4
local a = 4
for u = 1, users do
  local n = tonumber(ARGV[a])
  if n == nil or n < 0 or n ~= math.floor(n) then
    return redis.error_reply('write_history: user ' .. u .. ' has no event count at ARGV[' .. a .. ']')
  end
  a = a + 2 + 3 * n
end
if users < 0 or users ~= math.floor(users) or a ~= #ARGV + 1 then
  return redis.error_reply('write_history: ' .. #KEYS .. ' keys and ' .. #ARGV .. ' arguments do not match')
end
a = 4
for u = 0, users - 1 do
  local n, uid = tonumber(ARGV[a]), ARGV[a + 1]
  apply(KEYS[4 * u + 1], KEYS[4 * u + 2], KEYS[4 * u + 3], KEYS[4 * u + 4], uid, n, a + 2)
  a = a + 2 + 3 * n
end
if logging == 1 then
  if #logged > 0 then
    out[#out + 1] = redis.call('XADD', KEYS[4 * users + 1], '*', 'm', table.concat(logged, ' '))
  else
    out[#out + 1] = 0
  end
end
return out
