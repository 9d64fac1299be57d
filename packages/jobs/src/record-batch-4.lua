--- @include "includes/maybe-finish"
-- Adds a batch's counters once per batch, then finishes the run if it was the last one
-- (maybe_finish comes from includes/maybe-finish.lua).
-- Returns 1 when this call finished the run, 0 when not, -1 for a batch already counted, -2 for an unknown run.
-- KEYS: hash, batches set, current, plan. ARGV: run id, batch no, outcome, now, current ttl, plan ttl, field/increment pairs.
if redis.call('EXISTS', KEYS[1]) == 0 then return -2 end
if redis.call('SADD', KEYS[2], ARGV[2]) == 0 then return -1 end
for i = 7, #ARGV, 2 do redis.call('HINCRBY', KEYS[1], ARGV[i], tonumber(ARGV[i + 1])) end
if ARGV[3] == 'done' then redis.call('HINCRBY', KEYS[1], 'batches_done', 1) else redis.call('HINCRBY', KEYS[1], 'batches_failed', 1) end
if redis.call('GET', KEYS[3]) == ARGV[1] then redis.call('EXPIRE', KEYS[3], tonumber(ARGV[5])) end
return maybe_finish(KEYS[1], KEYS[3], KEYS[2], KEYS[4], ARGV[1], ARGV[4], tonumber(ARGV[6]))
