-- Extends a lease only while it is still ours (another holder's lease is left alone).
-- KEYS: lease. ARGV: token, ttl ms. Returns 1 when extended, 0 when the lease is gone or another's.
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
return 0
