-- Applies the events of one or more users; each user's events are applied atomically (the whole
-- call is). Redis 6.2 compatible (ZADD GT). In Redis Cluster all the users of one call share a hash slot.
-- On a single server the call also marks every event of its users in their recovery shards, after
-- the write and in the same atomic step (as mark_recovery.lua does, which a cluster calls apart:
-- recovery shards have slots of their own), so a batch is one script call.
-- KEYS: per user 4 keys: timeline zset, records hash, tombstones hash, paused flag; then per
-- recovery shard it marks, its marks (sorted set) and its last stamp (string)
-- ARGV: 1 max items kept, 2 ttl ms (both keys expire between 0.9 x ttl and ttl after the user's
-- last write), 3 the number of recovery shards S it marks, then per user: its event count n, its
-- recovery shard's index among the S (0: not marked here), its uid, then per event: member, view
-- time ms, serialized record
-- Returns, per user in KEYS order, {paused, code_1 .. code_n} flattened into one array: paused is 1
-- when the user paused recording (nothing written); code is 0 when the event lost (older than the
-- stored record, or not after a delete/clear tombstone of its item, or, for an item with no record,
-- not after the user's eviction floor '~e' of delete_history.lua), 1 when it replaced the stored
-- record, 2 when it created it; then the S shards' stamps in KEYS order (mark_recovery.lua's: every
-- event of the shard's users, won or lost, is now scored with it as uid:member).
local maxItems = tonumber(ARGV[1])
local ttl = tonumber(ARGV[2])
local shards = tonumber(ARGV[3])
local out = {}
-- Per shard index, the recovery members this call marks.
local marks = {}

-- One user's n events from ARGV[a]; appends the user's answer to out.
local function apply(timeline, records, tombstones, paused, n, a)
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

-- Marks the collected members of each shard with a stamp from this server's clock, strictly above
-- every stamp the shard issued before (see mark_recovery.lua); appends the stamps to out.
local function mark(first)
  local time = redis.call('TIME')
  local now = tonumber(time[1]) * 1000000 + tonumber(time[2])
  local clocks = {}
  for s = 1, shards do
    clocks[s] = KEYS[first + 2 * s]
  end
  -- One MGET and one MSET for every shard's clock (all on this server), not a GET and a SET each;
  -- a call holds at most redis.write.users.per.script (<= 1000) shards, well within unpack's limit.
  local lasts = redis.call('MGET', unpack(clocks))
  local stamped = {}
  for s = 1, shards do
    local stamp = math.max(now, tonumber(lasts[s] or '0') + 1)
    -- Numbers passed to redis.call become text with 14 significant digits: format them whole.
    local score = string.format('%.0f', stamp)
    stamped[#stamped + 1] = clocks[s]
    stamped[#stamped + 1] = score
    local members = marks[s]
    for i = 1, #members, 500 do
      local scored = {}
      for j = i, math.min(i + 499, #members) do
        scored[#scored + 1] = score
        scored[#scored + 1] = members[j]
      end
      redis.call('ZADD', KEYS[first + 2 * s - 1], unpack(scored))
    end
    out[#out + 1] = stamp
  end
  redis.call('MSET', unpack(stamped))
end

-- Check the shape before touching anything: a malformed call writes nothing.
if shards == nil or shards < 0 or shards ~= math.floor(shards) then
  return redis.error_reply('write_history: no recovery shard count at ARGV[3]')
end
local users = (#KEYS - 2 * shards) / 4
local a = 4
for u = 1, users do
  local n, s = tonumber(ARGV[a]), tonumber(ARGV[a + 1])
  if n == nil or n < 0 or n ~= math.floor(n) then
    return redis.error_reply('write_history: user ' .. u .. ' has no event count at ARGV[' .. a .. ']')
  end
  if s == nil or s < 0 or s > shards or s ~= math.floor(s) then
    return redis.error_reply('write_history: user ' .. u .. ' has no recovery shard index at ARGV[' .. (a + 1) .. ']')
  end
  a = a + 3 + 3 * n
end
if users < 0 or users ~= math.floor(users) or a ~= #ARGV + 1 then
  return redis.error_reply('write_history: ' .. #KEYS .. ' keys and ' .. #ARGV .. ' arguments do not match')
end
for s = 1, shards do
  marks[s] = {}
end
a = 4
for u = 0, users - 1 do
  local n, s, uid = tonumber(ARGV[a]), tonumber(ARGV[a + 1]), ARGV[a + 2]
  apply(KEYS[4 * u + 1], KEYS[4 * u + 2], KEYS[4 * u + 3], KEYS[4 * u + 4], n, a + 3)
  if s > 0 then
    local shardMarks = marks[s]
    for i = 0, n - 1 do
      shardMarks[#shardMarks + 1] = uid .. ':' .. ARGV[a + 3 + 3 * i]
    end
  end
  a = a + 3 + 3 * n
end
if shards > 0 then
  mark(4 * users)
end
return out
