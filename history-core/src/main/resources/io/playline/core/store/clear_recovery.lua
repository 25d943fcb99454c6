-- Removes write-back recovery marks that are not newer than a persisted snapshot.
-- KEYS: 1 recovery shard zset; ARGV: 1 snapshot time ms, then members
-- Returns how many marks were removed; marks written after the snapshot stay.
local removed = 0
local limit = tonumber(ARGV[1])
for i = 2, #ARGV do
  local score = redis.call('ZSCORE', KEYS[1], ARGV[i])
  if score and tonumber(score) <= limit then
    removed = removed + redis.call('ZREM', KEYS[1], ARGV[i])
  end
end
return removed
