-- Records a user's new session in the user's session index and says which stored sessions to
-- delete: the device's previous one (replaced) and those of the devices that authenticated least
-- recently past the cap. O(log cap) per call, O(k) when k sessions go: never a walk over the
-- index (it holds at most cap devices anyway).
--
-- The new session's device is never dropped: its score is past every other one (now, or the top
-- score + 1 when a node's clock is behind the stored scores or two sessions share a millisecond),
-- and it is skipped when choosing what goes over the cap.
--
-- KEYS[1] sorted set: device id, scored by the time of its newest session (ms)
-- KEYS[2] hash: device id -> its newest session id
-- ARGV[1] device id, ARGV[2] session id, ARGV[3] now (ms), ARGV[4] cap, ARGV[5] index TTL (ms)
-- Returns { replaced session id or "", session ids dropped over the cap... }
local replaced = redis.call('HGET', KEYS[2], ARGV[1])
if not replaced or replaced == ARGV[2] then
  replaced = ''
end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
local score = tonumber(ARGV[3])
local top = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
if top[2] and tonumber(top[2]) >= score then
  score = tonumber(top[2]) + 1
end
redis.call('ZADD', KEYS[1], score, ARGV[1])
local result = { replaced }
local over = redis.call('ZCARD', KEYS[1]) - tonumber(ARGV[4])
if over > 0 then
  -- One more than needed, in case the new device is among them (it cannot be: belt and braces).
  local devices = redis.call('ZRANGE', KEYS[1], 0, over)
  for _, device in ipairs(devices) do
    if over > 0 and device ~= ARGV[1] then
      local session = redis.call('HGET', KEYS[2], device)
      if session then
        result[#result + 1] = session
      end
      redis.call('ZREM', KEYS[1], device)
      redis.call('HDEL', KEYS[2], device)
      over = over - 1
    end
  end
end
redis.call('PEXPIRE', KEYS[1], ARGV[5])
redis.call('PEXPIRE', KEYS[2], ARGV[5])
return result
