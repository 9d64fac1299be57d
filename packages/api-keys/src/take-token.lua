--- @include "includes/token-bucket"
-- One token from one bucket (take_token from includes/token-bucket.lua), see token-bucket.ts.
-- Takes one or two keys: the key count is the command's first argument.
-- KEYS[1] the bucket, hash {tokens, ts}
-- KEYS[2] optional: a hash counting the requests that got a token (e.g. usage per day)
-- ARGV[1] capacity, ARGV[2] refill per second, ARGV[3] now, ms since the epoch
-- ARGV[4] the counter's field, ARGV[5] the counter's TTL in seconds (with KEYS[2] only)
-- Returns {1, 0} when a token was taken, else {0, ms until the next one}.
local taken, retry_ms = take_token(KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]))
if not taken then return {0, retry_ms} end
if KEYS[2] then
  redis.call('HINCRBY', KEYS[2], ARGV[4], 1)
  redis.call('EXPIRE', KEYS[2], ARGV[5])
end
return {1, 0}
