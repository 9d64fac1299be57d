-- Marks a run finished once every planned batch has reported. Shared by record-batch-4.lua and
-- mark-planned-4.lua through `--- @include` (resolved by @fragrance/redis loadLuaScript; each
-- stays one atomic script).
local function maybe_finish(hash, current, batches, plan, run_id, now, ttl)
  if redis.call('HGET', hash, 'status') ~= 'running' then return 0 end
  local total = tonumber(redis.call('HGET', hash, 'batches_total') or '-1')
  local done = tonumber(redis.call('HGET', hash, 'batches_done') or '0')
  local failed = tonumber(redis.call('HGET', hash, 'batches_failed') or '0')
  if total < 0 or done + failed < total then return 0 end
  local failed_rows = tonumber(redis.call('HGET', hash, 'failed') or '0')
  local status = 'completed'
  if failed > 0 or failed_rows > 0 then status = 'completed_with_failures' end
  redis.call('HSET', hash, 'status', status, 'finished_at', now)
  if redis.call('GET', current) == run_id then redis.call('DEL', current) end
  redis.call('EXPIRE', batches, ttl)
  redis.call('EXPIRE', plan, ttl)
  return 1
end
