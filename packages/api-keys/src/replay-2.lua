-- Counts one request a gateway admitted on its own while Redis was unreachable (its admission
-- journal, admission-journal.ts), at most once whatever how often it is replayed.
-- KEYS[1] usage:<id>:<day>          the day's counter the request belongs to
-- KEYS[2] admitted:<id>:<admission id>  the request's mark: set by the admission script when
--         Redis admitted the same edge request id, or by an earlier replay of this entry
-- ARGV[1] counted requests (units), ARGV[2] TTL of a usage counter (s), ARGV[3] TTL of the mark (s)
-- Returns 1 when counted now, 0 when it had been counted before.
if not redis.call('SET', KEYS[2], 'replayed ' .. KEYS[1], 'NX', 'EX', ARGV[3]) then return 0 end
local used = redis.call('INCRBY', KEYS[1], ARGV[1])
if used == tonumber(ARGV[1]) then redis.call('EXPIRE', KEYS[1], ARGV[2]) end
return 1
