-- Ends a lease only while it is still ours: a lease that expired and was taken by another holder
-- is never deleted by the one that lost it.
-- KEYS: lease. ARGV: token. Returns 1 when deleted, 0 otherwise.
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('DEL', KEYS[1])
  return 1
end
return 0
