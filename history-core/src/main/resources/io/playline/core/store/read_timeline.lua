-- Reads one page of a user's timeline (Redis 6.2 compatible; reads only). RedisTimeline reads most
-- pages with plain commands and comes here only for the pages those cannot settle (sparse filters,
-- ties at a cursor, a record gone between its round trips); both must answer alike. Order is newest first:
-- score (view time) descending, equal scores by member in descending byte order, which is the
-- order ZREVRANGEBYSCORE returns. Markers (members starting with '~', scored +inf) are skipped.
-- KEYS: 1 timeline zset, 2 records hash, 3 tombstones hash
-- ARGV: 1 cursor score ('+inf' on the first page), 2 cursor member ('' on the first page; of the
--   members at the cursor score only those sorting before it follow the cursor), 3 most entries to
--   return, 4 most entries to examine, 5..10 the oldest view time kept of business 1..6, or '-'
--   for a business the request filters out (as are members of any other business number)
-- Returns {state, size, exhausted, last member, last score, tombstones, member_1, score_1,
--   record_1, ...}: state 0 = no timeline, 1 = no marker, 2 = '~w', 3 = '~c'; size = ZCARD
--   (marker included); exhausted = 1 when no entry follows the last one examined; last member and
--   score = the last entry examined ('' and 0 when none); tombstones = HGETALL of the tombstones
--   hash when state < 2 or exhausted = 1 (when the caller may read HBase), else empty.
local timeline, records, tombstones = KEYS[1], KEYS[2], KEYS[3]
if redis.call('EXISTS', timeline) == 0 then
  return {0, 0, 1, '', 0, redis.call('HGETALL', tombstones)}
end
local state = 1
if redis.call('ZSCORE', timeline, '~c') then
  state = 3
elseif redis.call('ZSCORE', timeline, '~w') then
  state = 2
end
local size = redis.call('ZCARD', timeline)
local maxOut, budget = tonumber(ARGV[3]), tonumber(ARGV[4])
local oldest = {}
for b = 1, 6 do
  oldest[b] = tonumber(ARGV[4 + b])
end

-- Byte order, as Redis orders members of equal score (string '<' in Lua follows the locale).
local function less(a, b)
  for i = 1, math.min(#a, #b) do
    local x, y = string.byte(a, i), string.byte(b, i)
    if x ~= y then
      return x < y
    end
  end
  return #a < #b
end

local out = {}
local found, examined, stopped = 0, 0, false
local lastMember, lastScore = '', 0
local function consider(member, score)
  if found >= maxOut or examined >= budget then
    stopped = true
    return
  end
  examined = examined + 1
  lastMember, lastScore = member, score
  local business = tonumber(string.match(member, '^(%d+):') or '')
  local floor = business and oldest[business]
  if floor and score >= floor then
    local record = redis.call('HGET', records, member)
    if record then
      found = found + 1
      out[#out + 1] = member
      out[#out + 1] = score
      out[#out + 1] = record
    end
  end
end

local max = ARGV[1]
if ARGV[2] ~= '' then
  local ties = redis.call('ZREVRANGEBYSCORE', timeline, max, max)
  for _, member in ipairs(ties) do
    if string.sub(member, 1, 1) ~= '~' and less(member, ARGV[2]) then
      consider(member, tonumber(max))
      if stopped then
        break
      end
    end
  end
  max = '(' .. max
end
-- The first chunk holds just enough for a page whose entries all qualify (the page, one more to
-- tell whether anything follows, the markers); each further chunk doubles, up to 256. Converting
-- members Lua never looks at was most of a page's cost.
local offset, chunk = 0, math.min(256, maxOut + 3)
while not stopped do
  local page = redis.call('ZREVRANGEBYSCORE', timeline, max, '-inf', 'WITHSCORES', 'LIMIT', offset, chunk)
  for i = 1, #page, 2 do
    if string.sub(page[i], 1, 1) ~= '~' then
      consider(page[i], tonumber(page[i + 1]))
      if stopped then
        break
      end
    end
  end
  if #page < 2 * chunk then
    break
  end
  offset = offset + chunk
  chunk = math.min(256, chunk * 2)
end

local exhausted = 1
if stopped then
  exhausted = 0
end
local tombs = {}
if state < 2 or exhausted == 1 then
  tombs = redis.call('HGETALL', tombstones)
end
local reply = {state, size, exhausted, lastMember, lastScore, tombs}
for i = 1, #out do
  reply[#reply + 1] = out[i]
end
return reply
