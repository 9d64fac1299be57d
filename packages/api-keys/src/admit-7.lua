--- @include "includes/token-bucket"
-- One atomic admission decision per request (one round trip), see admission.ts.
-- take_token comes from includes/token-bucket.lua.
-- KEYS[1] apikey:<sha256>          the key's record (hash)
-- KEYS[2..4] usage:<id>:<day>      requests admitted on the day before, the day of, and the day after
--                                  the gateway's estimate (billing + used_today); the script counts
--                                  on the one Redis's clock falls in
-- KEYS[5] the token bucket {tokens, ts}: quota:<id>:bucket of a secret key, or for a publishable
--         key the visitor's own, quota:<id>:visitor:<client address>
-- KEYS[6] admitted:<id>:<admission id>  '<attempt> <usage key>': which attempt answers for the
--                                  charge (its refund alone gives it back) and where it counted
-- KEYS[7] a key the caller reads along in the same round trip, whatever the decision (the
--         gateway: the catalogue generation counter its edge cache is keyed by)
-- ARGV[1] mode: 'admit' (counts) or 'peek' (authenticates and reads, counts nothing)
-- ARGV[2] now, ms since the epoch: '' in production, so the time is Redis's own (TIME) and every
--         gateway instance decides days and refills on one clock; tests pass a fake instant
-- ARGV[3] TTL of a usage day counter, seconds
-- ARGV[4] default bucket capacity, ARGV[5] default refill per second (secret keys may override)
-- ARGV[6], ARGV[7] first instant of the estimated day and of the day after it (ms)
-- ARGV[8] counted requests this request costs (1; an export costs one per 1,000 records): all
--         of them must fit in what is left of the quota, or none is counted ('daily')
-- ARGV[9] '1' when KEYS[6] names this request's admission id (the edge's id of one client request,
--         the same on every retry the load balancer makes of it), '' otherwise
-- ARGV[10] how long an admission id is remembered, seconds
-- ARGV[11] this attempt's token (unique per admission call)
-- ARGV[12] what the route requires: a scope ('search', 'export', 'usage'), 'me' (any secret key)
--          or 'any'
-- ARGV[13] the page origin the request came from (Origin, else Referer's), '' when none
-- ARGV[14] the `limit` the request asks for, '' when none
-- ARGV[15] the client address (recorded as the key's last use)
-- ARGV[16] default visitor bucket capacity, ARGV[17] its refill per second, ARGV[18] default
--          largest `limit` (publishable keys may override all three)
-- ARGV[19] deadline, ms on Redis's clock ('' none): the caller gives up on its command after it
--          (a paused or stalled Redis: the command runs after the gateway answered an error), so
--          a script that runs later decides nothing and counts nothing ('late')
-- Returns {status, owner, quota, used, detail, now, day, read_along}; status is
-- ok|again|unknown|revoked|late|expired|rolled|scope|origin|limit|daily|burst|visitor
-- (again: admitted before under this admission id, not counted now; rolled: owner is the
-- successor's hint and detail when the key retired; limit: detail is the largest limit;
-- burst/visitor: detail is ms until the next token), day is 1, 2 or 3 (which of KEYS[2..4]
-- counted), read_along KEYS[7]'s value ('' when it has none). An unknown key costs the same
-- single HMGET round trip as a known one. Refusals before 'daily' write nothing.

-- Is the page origin one of the key's patterns (space-separated): exact, or '<scheme>://*.<rest>'
-- where * is exactly one DNS label (so no dot, no port, no other scheme sneaks in)?
local function origin_allowed(patterns, origin)
  if origin == '' then return false end
  for pattern in string.gmatch(patterns or '', '%S+') do
    if pattern == origin then return true end
    local star = string.find(pattern, '://*.', 1, true)
    if star then
      local head = string.sub(pattern, 1, star + 2)
      local tail = string.sub(pattern, star + 4)
      if #origin > #head + #tail and string.sub(origin, 1, #head) == head and string.sub(origin, -#tail) == tail then
        local label = string.sub(origin, #head + 1, #origin - #tail)
        if string.find(label, '^%w[%w%-]*$') and not string.find(label, '%-$') then return true end
      end
    end
  end
  return false
end

-- May this key reach what the route requires? Publishable keys: the read endpoints only.
local function access_allowed(publishable, scopes, required)
  if required == 'any' then return true end
  if publishable then return required == 'search' end
  if required == 'me' or not scopes then return true end
  return string.find(' ' .. scopes .. ' ', ' ' .. required .. ' ', 1, true) ~= nil
end

local function decide()
  local rec = redis.call('HMGET', KEYS[1], 'owner', 'quota', 'revoked_at', 'burst', 'refill', 'last_used_at', 'kind',
    'expires_at', 'retires_at', 'successor_hint', 'scopes', 'origins', 'visitor_burst', 'visitor_refill', 'max_limit')
  local owner = rec[1]
  if not owner then return {'unknown', '', 0, 0, 0, 0, 2} end
  if rec[3] then return {'revoked', '', 0, 0, 0, 0, 2} end

  local now = tonumber(ARGV[2])
  if not now then
    local time = redis.call('TIME')
    now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
  end
  local deadline = tonumber(ARGV[19])
  if deadline and now > deadline then return {'late', '', 0, 0, deadline, now, 2} end
  local expires = tonumber(rec[8])
  if expires and now >= expires then return {'expired', '', 0, 0, expires, now, 2} end
  local retires = tonumber(rec[9])
  if retires and now >= retires then return {'rolled', rec[10] or '', 0, 0, retires, now, 2} end
  local publishable = rec[7] == 'publishable'
  if not access_allowed(publishable, rec[11], ARGV[12]) then return {'scope', '', 0, 0, 0, now, 2} end
  if publishable then
    if not origin_allowed(rec[12], ARGV[13]) then return {'origin', '', 0, 0, 0, now, 2} end
    local max_limit = tonumber(rec[15]) or tonumber(ARGV[18])
    if (tonumber(ARGV[14]) or 0) > max_limit then return {'limit', '', 0, 0, max_limit, now, 2} end
  end

  local day = 2
  if now < tonumber(ARGV[6]) then day = 1 elseif now >= tonumber(ARGV[7]) then day = 3 end
  local usage_key = KEYS[1 + day]
  local quota = tonumber(rec[2]) or 0
  local used = tonumber(redis.call('GET', usage_key) or '0')
  -- last use to the minute: one write a minute per key, not one per request (AOF size).
  local function touch()
    if now - (tonumber(rec[6]) or 0) >= 60000 then redis.call('HSET', KEYS[1], 'last_used_at', now, 'last_used_ip', ARGV[15]) end
  end

  if ARGV[1] == 'peek' then
    touch()
    return {'ok', owner, quota, used, 0, now, day}
  end

  -- An admission id already counted: the edge retried this request on another instance after the
  -- first one died or closed before answering. Same decision, counted (and its token taken) once.
  -- Refusals are not recorded: they counted nothing, so deciding a repeat afresh charges nothing twice.
  local remember = ARGV[9] == '1'
  if remember then
    local record = redis.call('GET', KEYS[6])
    if record then
      local counted_on = string.sub(record, (string.find(record, ' ', 1, true) or 0) + 1)
      for i = 1, 3 do if KEYS[1 + i] == counted_on then day = i end end
      -- This attempt now answers for the charge: a late refund of an earlier one (it failed, the
      -- edge retried at once, its refund came after) must not give back a request being served.
      redis.call('SET', KEYS[6], ARGV[11] .. ' ' .. counted_on, 'KEEPTTL')
      return {'again', owner, quota, tonumber(redis.call('GET', counted_on) or '0'), 0, now, day}
    end
  end

  local units = tonumber(ARGV[8]) or 1
  if used + units > quota then return {'daily', owner, quota, used, 0, now, day} end

  -- A secret key's burst bucket, or the visitor's bucket of a publishable key (KEYS[5] is the right one).
  local capacity, refill
  if publishable then
    capacity = tonumber(rec[13]) or tonumber(ARGV[16])
    refill = tonumber(rec[14]) or tonumber(ARGV[17])
  else
    capacity = tonumber(rec[4]) or tonumber(ARGV[4])
    refill = tonumber(rec[5]) or tonumber(ARGV[5])
  end
  local taken, retry_ms = take_token(KEYS[5], capacity, refill, now)
  if not taken then return {publishable and 'visitor' or 'burst', owner, quota, used, retry_ms, now, day} end

  used = redis.call('INCRBY', usage_key, units)
  if used == units then redis.call('EXPIRE', usage_key, ARGV[3]) end
  if remember then redis.call('SET', KEYS[6], ARGV[11] .. ' ' .. usage_key, 'EX', ARGV[10]) end
  touch()
  return {'ok', owner, quota, used, 0, now, day}
end

local reply = decide()
reply[8] = redis.call('GET', KEYS[7]) or ''
return reply
