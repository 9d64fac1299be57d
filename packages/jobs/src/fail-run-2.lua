-- Fails a run as a whole (only an unfinished run can fail) and frees the one-run-at-a-time slot.
-- KEYS: hash, current. ARGV: run id, now, error.
local status = redis.call('HGET', KEYS[1], 'status')
if status == 'planning' or status == 'running' then
  redis.call('HSET', KEYS[1], 'status', 'failed', 'finished_at', ARGV[2], 'error', ARGV[3])
end
if redis.call('GET', KEYS[2]) == ARGV[1] then redis.call('DEL', KEYS[2]) end
return 1
