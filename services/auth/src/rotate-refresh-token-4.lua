-- Rotates a refresh token in one step: the old token is consumed only together with saving its
-- successor, so a refresh that fails part way leaves both writes or neither (adapter.ts).
--
-- KEYS[1] the old token, KEYS[2] the successor, KEYS[3] the grant's token list,
-- KEYS[4] the successor a retry replaces (a retry only; otherwise KEYS[1] again, unused)
-- ARGV[1] the successor's id, ARGV[2] its payload (JSON), ARGV[3] its TTL in seconds (0: none),
-- ARGV[4] now (epoch seconds), ARGV[5] the reuse grace period in seconds,
-- ARGV[6] the old token's successor id as the request found it ('' if it found the token unused)
-- Returns 1 when rotated, 0 when the old token is no longer as the request found it (another
-- request rotated it first, or the grant was revoked meanwhile): refused like a used grant.
local old, successor, grantList, replaced = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local id, payload, ttl, now = ARGV[1], ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4])
local grace, expected = tonumber(ARGV[5]), ARGV[6]

if redis.call('EXISTS', old) == 0 then return 0 end
local consumed = redis.call('HGET', old, 'consumed')
if expected == '' then
  if consumed then return 0 end
  redis.call('HSET', old, 'consumed', now)
else
  -- A retry: still inside the window (counted from the first rotation, never extended), and
  -- the successor it replaces is still the current one and still unused.
  if not consumed or now - tonumber(consumed) >= grace then return 0 end
  if redis.call('HGET', old, 'successor') ~= expected then return 0 end
  if redis.call('HEXISTS', replaced, 'payload') == 0 or redis.call('HEXISTS', replaced, 'consumed') == 1 then return 0 end
  -- Counted as used, with no successor of its own: whoever presents it later is taken for a
  -- thief and the grant is revoked.
  redis.call('HSET', replaced, 'consumed', now)
end
redis.call('HSET', old, 'successor', id)

redis.call('HSET', successor, 'payload', payload)
if ttl > 0 then redis.call('EXPIRE', successor, ttl) end
redis.call('RPUSH', grantList, successor)
-- The list lives as long as its longest-lived token; GT only ever extends it.
if ttl > 0 then
  redis.call('EXPIRE', grantList, ttl, 'GT')
  redis.call('EXPIRE', grantList, ttl, 'NX')
end
return 1
