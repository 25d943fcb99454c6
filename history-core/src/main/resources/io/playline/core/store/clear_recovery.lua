-- Removes recovery marks whose writes are persisted: each member only while it is still scored at
-- most the given stamp (mark_recovery.lua's), so a mark a later write rescored stays.
-- KEYS: 1 recovery shard zset; ARGV: 1 stamp (microseconds), then members
-- Returns how many marks were removed.
local removed = 0
local limit = tonumber(ARGV[1])
for i = 2, #ARGV do
  local score = redis.call('ZSCORE', KEYS[1], ARGV[i])
  if score and tonumber(score) <= limit then
    removed = removed + redis.call('ZREM', KEYS[1], ARGV[i])
  end
end
return removed
