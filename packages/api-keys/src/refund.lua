-- Gives back admitted requests: the day's usage count goes down by ARGV[1] (default one), never
-- below zero. KEYS[1] usage counter of the key for the day. Returns the new count.
local used = tonumber(redis.call('GET', KEYS[1]) or '0')
local units = math.min(used, tonumber(ARGV[1]) or 1)
if units > 0 then return redis.call('DECRBY', KEYS[1], units) end
return used
