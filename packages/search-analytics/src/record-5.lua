-- Counts one search (packages/search-analytics/src/recorder.ts), atomically, in one round trip.
-- KEYS: owners set of the day, the owner's totals hash, its top, zero-result and relaxed sorted sets.
-- ARGV: owner, folded query text, zero (0/1), relaxed (0/1), cap, keep, ttl seconds.
-- A sorted set that passes `cap` members is cut to its `keep` highest scores (ties: the
-- lexicographically smallest texts go first), so none ever holds more than `cap`.
local owner, text = ARGV[1], ARGV[2]
local zero, relaxed = ARGV[3] == '1', ARGV[4] == '1'
local cap, keep, ttl = tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7])

local function count(key)
  redis.call('ZINCRBY', key, 1, text)
  local size = redis.call('ZCARD', key)
  if size > cap then redis.call('ZREMRANGEBYRANK', key, 0, size - keep - 1) end
  redis.call('EXPIRE', key, ttl)
end

redis.call('SADD', KEYS[1], owner)
redis.call('EXPIRE', KEYS[1], ttl)
redis.call('HINCRBY', KEYS[2], 'searches', 1)
if zero then redis.call('HINCRBY', KEYS[2], 'zero_results', 1) end
if relaxed then redis.call('HINCRBY', KEYS[2], 'relaxed', 1) end
redis.call('EXPIRE', KEYS[2], ttl)
count(KEYS[3])
if zero then count(KEYS[4]) end
if relaxed then count(KEYS[5]) end
return 1
