-- The entries of one recovery log older than an age, by this Redis server's clock (Redis 6.2
-- compatible): entry ids are this server's milliseconds when the entry was added (or just above the
-- log's last id, if the clock stepped back), so no node clock is involved.
-- KEYS: 1 the recovery log (stream)
-- ARGV: 1 age in milliseconds, 2 most entries to return
-- Returns XRANGE's answer for the entries with ids up to now - age, oldest first: per entry
-- {id, {field, value, ...}}.
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local before = now - tonumber(ARGV[1])
if before < 0 then
  return {}
end
return redis.call('XRANGE', KEYS[1], '-', string.format('%.0f', before), 'COUNT', tonumber(ARGV[2]))
