-- Records a user's new session in the user's session index and says which stored sessions to
-- delete: the device's previous one (replaced) and those of the devices that authenticated least
-- recently past the cap. O(log cap) per call, O(k) when k sessions go: never a walk over the
-- index (it holds at most cap devices anyway).
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
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
local result = { replaced }
local over = redis.call('ZCARD', KEYS[1]) - tonumber(ARGV[4])
if over > 0 then
  local devices = redis.call('ZRANGE', KEYS[1], 0, over - 1)
  redis.call('ZREMRANGEBYRANK', KEYS[1], 0, over - 1)
  for _, device in ipairs(devices) do
    local session = redis.call('HGET', KEYS[2], device)
    if session then
      result[#result + 1] = session
    end
    redis.call('HDEL', KEYS[2], device)
  end
end
redis.call('PEXPIRE', KEYS[1], ARGV[5])
redis.call('PEXPIRE', KEYS[2], ARGV[5])
return result
