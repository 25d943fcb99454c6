-- The marks of one recovery shard older than an age, by this Redis server's clock (Redis 6.2
-- compatible): marks are scored by mark_recovery.lua's stamps, so no node clock is involved. The
-- shard's last stamp counts as "now" when it is ahead of the clock (the clock stepped back).
-- KEYS: 1 the shard's marks (sorted set), 2 the shard's last stamp (string)
-- ARGV: 1 age in microseconds, 2 most members to return
-- Returns {threshold, member...}: the members scored at most threshold (now - age), oldest first.
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000000 + tonumber(time[2])
now = math.max(now, tonumber(redis.call('GET', KEYS[2]) or '0'))
local threshold = now - tonumber(ARGV[1])
local out = {string.format('%.0f', threshold)}
for _, member in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', string.format('%.0f', threshold), 'LIMIT', 0, tonumber(ARGV[2]))) do
  out[#out + 1] = member
end
return out
