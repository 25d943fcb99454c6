-- Applies one user's events atomically (Redis 6.2 compatible).
-- KEYS: 1 timeline zset, 2 records hash, 3 tombstones hash, 4 paused flag
-- ARGV: 1 max items kept, 2 ttl ms (both keys expire between 0.9 x ttl and ttl after the user's
-- last write), then per event: member, view time ms, serialized record
-- Returns {paused, code_1 .. code_n}: paused is 1 when the user paused recording (nothing
-- written); code is 0 when the event lost (older than the stored record, or not after a
-- delete/clear tombstone of its item), 1 when it replaced the stored record, 2 when it created it.
local timeline, records, tombstones = KEYS[1], KEYS[2], KEYS[3]
local maxItems = tonumber(ARGV[1])
local ttl = tonumber(ARGV[2])
local n = (#ARGV - 2) / 3
local out = {0}
-- Most users are neither paused nor have tombstones: one EXISTS answers both for them.
local special = redis.call('EXISTS', KEYS[4], tombstones) > 0
if special and redis.call('EXISTS', KEYS[4]) == 1 then
  out[1] = 1
  for i = 1, n do out[i + 1] = 0 end
  return out
end
-- Read business tombstones once per business.
local hasTombstones = special and redis.call('EXISTS', tombstones) == 1
local clearAll = -1
if hasTombstones then
  clearAll = tonumber(redis.call('HGET', tombstones, '*') or '-1')
end
local businessTombs = {}
local changed = false
local grew = false
for i = 1, n do
  local base = 2 + (i - 1) * 3
  local member, viewTime, record = ARGV[base + 1], tonumber(ARGV[base + 2]), ARGV[base + 3]
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
  if viewTime > tomb then
    local current = redis.call('ZSCORE', timeline, member)
    if not current then
      code = 2
      grew = true
    elseif viewTime >= tonumber(current) then
      code = 1
    end
    if code > 0 then
      redis.call('ZADD', timeline, viewTime, member)
      redis.call('HSET', records, member, record)
      changed = true
    end
  end
  out[i + 1] = code
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
return out
