-- Claims first-today outbox entries that waited too long for their node to publish them
-- (Redis 6.2 compatible): each entry scored at most (now - age) is rescored to now, by Redis's
-- clock, so another sweeper skips it for another age while this one sends it (and removes it on
-- Kafka's ack); an entry whose sender died becomes claimable again after age.
-- KEYS: 1 an outbox
-- ARGV: 1 age ms, 2 most entries to claim
-- Returns the outbox's size, then the claimed entries, oldest first.
redis.replicate_commands() -- TIME before a write: replicate effects (the default since Redis 5)
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now - tonumber(ARGV[1]), 'LIMIT', 0, tonumber(ARGV[2]))
for _, entry in ipairs(due) do
  redis.call('ZADD', KEYS[1], 'XX', now, entry)
end
local reply = {redis.call('ZCARD', KEYS[1])}
for _, entry in ipairs(due) do
  reply[#reply + 1] = entry
end
return reply
