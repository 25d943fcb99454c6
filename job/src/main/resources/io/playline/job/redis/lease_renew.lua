-- Renews a recovery shard's sweep lease if the caller still owns it.
-- KEYS: 1 lease; ARGV: 1 owner id, 2 ttl ms
-- Returns 1 when the caller owns the lease (which now expires ttl from now), else 0.
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
