-- Checks and sets one user's first-today bit (or set member) and, on the first check of the day,
-- appends the day's event to the first-today outbox in the same atomic step (Redis 6.2
-- compatible). The bitmap and its outbox share a hash tag, so in Redis Cluster both live in one slot.
-- KEYS: 1 the day's bitmap chunk (or set) of the user's shard, 2 its outbox (sorted set:
--   serialized FirstTodayEvent scored by Redis time in ms)
-- ARGV: 1 bit offset within the chunk (or the set member), 2 key expiry ms (set once, when the key
--   is new), 3 the serialized event, 4 the outbox's capacity, 5 'm' when KEYS[1] is a set
-- Returns 1: not the first check today; 0: first, the event is in the outbox; 2: first, but the
-- outbox is full, so the event is not in it.
redis.replicate_commands() -- TIME before a write: replicate effects (the default since Redis 5)
local previous
if ARGV[5] == 'm' then
  previous = 1 - redis.call('SADD', KEYS[1], ARGV[1])
else
  previous = redis.call('SETBIT', KEYS[1], ARGV[1], 1)
end
if previous == 1 then
  return 1
end
if redis.call('PTTL', KEYS[1]) < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[4]) then
  return 2
end
local now = redis.call('TIME')
redis.call('ZADD', KEYS[2], tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000), ARGV[3])
return 0
