-- Advertises a live job instance for ttl and lists the live ones (expiry by Redis's clock, so
-- the instances' clocks need not agree).
-- KEYS: 1 instances zset (owner id scored by expiry ms); ARGV: 1 owner id, 2 ttl ms
-- Returns the owner ids whose expiry is still ahead, the caller's included.
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local ttl = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
redis.call('ZADD', KEYS[1], now + ttl, ARGV[1])
-- The set goes when its last instance's entry would: the highest score is the latest expiry.
local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
redis.call('PEXPIRE', KEYS[1], math.max(ttl, tonumber(last[2]) - now))
return redis.call('ZRANGE', KEYS[1], 0, -1)
