-- Gives back one admitted request: the day's usage count goes down by one, never below zero.
-- KEYS[1] usage counter of the key for the day. Returns the new count.
local used = tonumber(redis.call('GET', KEYS[1]) or '0')
if used > 0 then return redis.call('DECR', KEYS[1]) end
return 0
