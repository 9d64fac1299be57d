-- Takes one or two keys (the key count is the command's first argument).
-- Gives back admitted requests: the day's usage count goes down by ARGV[1] (default one), never
-- below zero. KEYS[1] usage counter of the key for the day. Returns the new count.
-- KEYS[2] (optional) admitted:<id>:<admission id> of a request admitted under an edge id, ARGV[2]
-- the refunding attempt's token: given back only while that record names this attempt as the one
-- answering for the charge, and the record goes with it. So a request counted once is refunded at
-- most once, never while a retry of it is being served, and a later retry of it counts afresh.
if KEYS[2] then
  local record = redis.call('GET', KEYS[2])
  if not record or string.sub(record, 1, #ARGV[2] + 1) ~= ARGV[2] .. ' ' then
    return tonumber(redis.call('GET', KEYS[1]) or '0')
  end
  redis.call('DEL', KEYS[2])
end
local used = tonumber(redis.call('GET', KEYS[1]) or '0')
local units = math.min(used, tonumber(ARGV[1]) or 1)
if units > 0 then return redis.call('DECRBY', KEYS[1], units) end
return used
