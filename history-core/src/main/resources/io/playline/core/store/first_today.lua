-- Checks and sets one user's first-today bit (Redis 6.2 compatible).
-- KEYS: 1 the day's bitmap shard; ARGV: 1 bit offset, 2 expiry ms (set once, when the key is new)
-- Returns the previous bit: 0 means this call is the user's first of the day.
local previous = redis.call('SETBIT', KEYS[1], ARGV[1], 1)
if previous == 0 and redis.call('PTTL', KEYS[1]) < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return previous
