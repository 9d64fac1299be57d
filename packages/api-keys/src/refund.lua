-- Gives back admitted requests: the day's usage count goes down by ARGV[1] (default one), never
-- below zero. KEYS[1] usage counter of the key for the day. Returns the new count.
-- KEYS[2] (optional) admitted:<id>:<admission id> of a request admitted under an edge id: given
-- back only while that record exists, and the record goes with it, so a request counted once is
-- refunded at most once (whichever instance fails it) and a later retry of it counts afresh.
if KEYS[2] and redis.call('DEL', KEYS[2]) == 0 then return tonumber(redis.call('GET', KEYS[1]) or '0') end
local used = tonumber(redis.call('GET', KEYS[1]) or '0')
local units = math.min(used, tonumber(ARGV[1]) or 1)
if units > 0 then return redis.call('DECRBY', KEYS[1], units) end
return used
