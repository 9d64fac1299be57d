--- @include "includes/maybe-finish"
-- Marks planning done and finishes the run at once when nothing is left to report
-- (maybe_finish comes from includes/maybe-finish.lua). Returns 1 when it finished the run.
-- KEYS: hash, batches set, current, plan. ARGV: run id, now, plan ttl, then field/value pairs.
for i = 4, #ARGV, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
redis.call('HSET', KEYS[1], 'status', 'running', 'planned', '1')
return maybe_finish(KEYS[1], KEYS[3], KEYS[2], KEYS[4], ARGV[1], ARGV[2], tonumber(ARGV[3]))
