--- @include "includes/rate"
-- The rate check on its own, for requests that reach no admission script (ADMIT runs the
-- same check first when it is given the rate arguments). Replies {admitted, keyCount,
-- keyRetryAt, keyOldest, acctCount, acctRetryAt, acctOldest, dayCount, userCount,
-- userRetryAt, userOldest}.
--
-- KEYS: key log, account log, account day counter, end-user log
-- ARGV: now, member, key limit, account limit, day limit (-1 = none), window ms, day TTL ms,
--       end-user limit
local now = tonumber(ARGV[1])
local kLimit, aLimit, dLimit, win, uLimit = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[8])
local blocked, f = rate_check(KEYS[1], KEYS[2], KEYS[3], KEYS[4], now, kLimit, aLimit, dLimit, uLimit, win)
if blocked then return {0, unpack(f)} end
rate_record(KEYS[1], KEYS[2], KEYS[3], KEYS[4], now, ARGV[2], kLimit, aLimit, dLimit, uLimit, win, ARGV[7], f)
return {1, unpack(f)}
