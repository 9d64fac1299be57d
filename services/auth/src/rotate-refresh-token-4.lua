-- Rotates a refresh token in one step: the presented token is consumed only together with saving
-- its successor, so a refresh that fails part way leaves both writes or neither (adapter.ts).
--
-- A token stays usable after its first rotation until one of its successors is used: presented
-- again before that (a lost answer, several processes refreshing at once) it gets one more
-- successor, and every successor handed out stays valid. The first use of a successor marks its
-- predecessor `successor_used`; from then on the predecessor is two generations old, and
-- presenting it is theft (the adapter shows it consumed; oidc-provider revokes the grant).
--
-- KEYS[1] the presented token, KEYS[2] its successor, KEYS[3] the grant's token list,
-- KEYS[4] the presented token's predecessor (KEYS[1] again when it has none)
-- ARGV[1] the presented token's id, ARGV[2] the successor's payload (JSON),
-- ARGV[3] its TTL in seconds (0: none), ARGV[4] now (epoch seconds),
-- ARGV[5] the end of the grant's absolute lifetime (epoch seconds), inherited by the successor
-- Returns 1 when rotated, 0 when the presented token is gone or a successor of it was used
-- meanwhile (refused like a used grant, the grant untouched: the request raced that use).
local presented, successor, grantList, predecessor = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local id, payload, ttl, now, absolute = ARGV[1], ARGV[2], tonumber(ARGV[3]), ARGV[4], ARGV[5]

if redis.call('EXISTS', presented) == 0 then return 0 end
if redis.call('HEXISTS', presented, 'successor_used') == 1 then return 0 end
if redis.call('HSETNX', presented, 'consumed', now) == 1 and predecessor ~= presented then
  -- The first use of this token: its predecessor is two generations old from now on.
  if redis.call('EXISTS', predecessor) == 1 then redis.call('HSET', predecessor, 'successor_used', now) end
end

redis.call('HSET', successor, 'payload', payload, 'predecessor', id, 'created', now, 'absolute', absolute)
if ttl > 0 then redis.call('EXPIRE', successor, ttl) end
redis.call('RPUSH', grantList, successor)
-- The list lives as long as its longest-lived token; GT only ever extends it.
if ttl > 0 then
  redis.call('EXPIRE', grantList, ttl, 'GT')
  redis.call('EXPIRE', grantList, ttl, 'NX')
end
return 1
