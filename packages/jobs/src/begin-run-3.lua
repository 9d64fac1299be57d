-- Starts a run unless another one is current (one run at a time); a redone planning job of the
-- same run is let through. Returns '' when started, else the current run's id.
-- KEYS: current, hash, runs zset. ARGV: run id, current ttl, started ms, then hash field/value pairs.
local cur = redis.call('GET', KEYS[1])
if cur and cur ~= ARGV[1] then return cur end
redis.call('SET', KEYS[1], ARGV[1], 'EX', tonumber(ARGV[2]))
if redis.call('EXISTS', KEYS[2]) == 0 then
  for i = 4, #ARGV, 2 do redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 1]) end
  redis.call('ZADD', KEYS[3], tonumber(ARGV[3]), ARGV[1])
end
return ''
