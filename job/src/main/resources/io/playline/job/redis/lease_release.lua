-- Releases a recovery shard's sweep lease if the caller still owns it.
-- KEYS: 1 lease; ARGV: 1 owner id
-- Returns 1 when the caller's lease was deleted, else 0 (expired, or another instance's now).
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
