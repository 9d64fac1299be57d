-- One atomic admission decision per request (one round trip), see admission.ts.
-- take_token comes from token-bucket.lua, prepended to this text at load time (lua.ts).
-- KEYS[1] apikey:<sha256>          the key's record (hash)
-- KEYS[2] usage:<id>:<day>         requests admitted on the current quota day (billing + used_today)
-- KEYS[3] quota:<id>:bucket        token bucket {tokens, ts}
-- ARGV[1] mode: 'admit' (counts) or 'peek' (authenticates and reads, counts nothing)
-- ARGV[2] now, ms since the epoch (from the gateway's clock, so tests can fake it)
-- ARGV[3] TTL of a usage day counter, seconds
-- ARGV[4] default bucket capacity, ARGV[5] default refill per second (keys may override)
-- ARGV[6] counted requests this request costs (1; an export costs one per 1,000 records): all
--         of them must fit in what is left of the quota, or none is counted ('daily')
-- Returns {status, owner, quota, used, retry_ms}; status is ok|unknown|revoked|daily|burst.
-- An unknown key costs the same single HMGET round trip as a known one.
local rec = redis.call('HMGET', KEYS[1], 'owner', 'quota', 'revoked_at', 'burst', 'refill', 'last_used_at')
local owner = rec[1]
if not owner then return {'unknown', '', 0, 0, 0} end
if rec[3] then return {'revoked', '', 0, 0, 0} end

local now = tonumber(ARGV[2])
local quota = tonumber(rec[2]) or 0
local used = tonumber(redis.call('GET', KEYS[2]) or '0')
-- last_used_at to the minute: one write a minute per key, not one per request (AOF size).
local function touch()
  if now - (tonumber(rec[6]) or 0) >= 60000 then redis.call('HSET', KEYS[1], 'last_used_at', now) end
end

if ARGV[1] == 'peek' then
  touch()
  return {'ok', owner, quota, used, 0}
end

local units = tonumber(ARGV[6]) or 1
if used + units > quota then return {'daily', owner, quota, used, 0} end

local capacity = tonumber(rec[4]) or tonumber(ARGV[4])
local refill = tonumber(rec[5]) or tonumber(ARGV[5])
local taken, retry_ms = take_token(KEYS[3], capacity, refill, now)
if not taken then return {'burst', owner, quota, used, retry_ms} end

used = redis.call('INCRBY', KEYS[2], units)
if used == units then redis.call('EXPIRE', KEYS[2], ARGV[3]) end
touch()
return {'ok', owner, quota, used, 0}
