-- The token bucket shared by admit-7.lua (the gateway's per-key burst limit) and take-token.lua
-- (any other caller, e.g. the MCP server's per-user limit). Both `--- @include` it, which the
-- loader (@fragrance/redis loadLuaScript) resolves: each stays one atomic script (one EVALSHA)
-- per request, and the bucket rules exist once.
--
-- take_token(key, capacity, refill_per_second, now_ms) -> taken (boolean), retry_ms
-- The bucket is the hash {tokens, ts} at `key`; a missing bucket is full. When no token is left
-- nothing is written and retry_ms says when the next one comes.
local function take_token(key, capacity, refill, now)
  local bucket = redis.call('HMGET', key, 'tokens', 'ts')
  local tokens = tonumber(bucket[1]) or capacity
  local ts = tonumber(bucket[2]) or now
  -- Clocks of several callers may disagree slightly: never refill for time running backwards.
  if now > ts then
    tokens = math.min(capacity, tokens + (now - ts) * refill / 1000)
    ts = now
  end
  if tokens < 1 then
    return false, math.ceil((1 - tokens) * 1000 / refill)
  end
  tokens = tokens - 1
  redis.call('HSET', key, 'tokens', tostring(tokens), 'ts', ts)
  -- Once full again the bucket carries no information: let it expire.
  redis.call('PEXPIRE', key, math.ceil(capacity * 1000 / refill) + 1000)
  return true, 0
end
