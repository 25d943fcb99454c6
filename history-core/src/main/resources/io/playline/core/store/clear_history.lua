-- Clears one user's history, or some businesses of it, in one atomic step (Redis 6.2 compatible):
-- raises the clear tombstone ('*' or 'b<business>') to the clear time (never lowers one), removes
-- what it covers from the timeline and the records, and prunes tombstones it makes redundant or
-- that are past their TTL. write_history.lua then refuses any covered event not after the clear.
-- A clear of everything unlinks both keys (freed in the background, so a heavy user's clear stays
-- short) and leaves a timeline holding only the '~c' marker: HBase has nothing the clear does not
-- cover, so readers need not look there.
-- Pruning is O(tombstones it removes), never an HGETALL: item tombstones through the order index
-- (KEYS[4], see delete_history.lua; at most history.tombstones.max.per.user of them), clear
-- tombstones and the eviction floor by name ('*', 'b1'..'b16', '~e').
-- KEYS: 1 timeline zset, 2 records hash, 3 tombstones hash, 4 tombstone order zset
-- ARGV: 1 clear time ms, 2 tombstone ttl ms, 3 max items of a timeline, 4 history ttl ms, then
--   business numbers (none = everything)
-- Returns the number of items removed from the timeline (markers not counted).
local timeline, records, tombstones, order = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local now, ttl, maxItems = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])

local function raise(field)
  if now > tonumber(redis.call('HGET', tombstones, field) or '-1') then
    redis.call('HSET', tombstones, field, ARGV[1])
  end
end

-- Removes the tombstones older than limit, but keep: items through the index, clears by name.
local function prune(limit, keep)
  local items = redis.call('ZRANGEBYSCORE', order, '-inf', '(' .. limit)
  for j = 1, #items, 500 do
    local last = math.min(j + 499, #items)
    redis.call('HDEL', tombstones, unpack(items, j, last))
    redis.call('ZREM', order, unpack(items, j, last))
  end
  local names = {'*', '~e'}
  for b = 1, 16 do
    names[#names + 1] = 'b' .. b
  end
  local times = redis.call('HMGET', tombstones, unpack(names))
  for i = 1, #names do
    if names[i] ~= keep and times[i] and tonumber(times[i]) < limit then
      redis.call('HDEL', tombstones, names[i])
    end
  end
end

local removed = 0
if #ARGV == 4 then
  raise('*')
  removed = redis.call('ZCARD', timeline)
  if redis.call('ZSCORE', timeline, '~c') or redis.call('ZSCORE', timeline, '~w') then
    removed = removed - 1
  end
  redis.call('UNLINK', timeline, records)
  if maxItems >= 2 then
    redis.call('ZADD', timeline, '+inf', '~c')
    redis.call('PEXPIRE', timeline, ARGV[4])
  end
  -- Every other tombstone not after the clear is covered by it.
  prune(tonumber(redis.call('HGET', tombstones, '*')) + 1, '*')
else
  local wanted = {}
  for i = 5, #ARGV do
    raise('b' .. ARGV[i])
    wanted[ARGV[i]] = true
  end
  if redis.call('ZSCORE', timeline, '~c') and redis.call('ZCARD', timeline) >= maxItems then
    redis.call('ZREM', timeline, '~c')
    redis.call('ZADD', timeline, '+inf', '~w')
  end
  local doomed = {}
  local size = redis.call('ZCARD', timeline)
  for start = 0, size - 1, 1000 do
    for _, member in ipairs(redis.call('ZRANGE', timeline, start, start + 999)) do
      local business = string.match(member, '^(%d+):')
      if business and wanted[business] then
        doomed[#doomed + 1] = member
      end
    end
  end
  for j = 1, #doomed, 500 do
    local last = math.min(j + 499, #doomed)
    removed = removed + redis.call('ZREM', timeline, unpack(doomed, j, last))
    redis.call('HDEL', records, unpack(doomed, j, last))
  end
  prune(now - ttl, '')
end
redis.call('PEXPIRE', tombstones, ttl)
redis.call('PEXPIRE', order, ttl)
return removed
