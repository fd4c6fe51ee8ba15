--- @include "includes/rate"
-- The rate check on its own, for requests that reach no admission script (ADMIT runs the
-- same check first when it is given the rate arguments). Replies {admitted, keyCount,
-- keyRetryAt, keyOldest, acctCount, acctRetryAt, acctOldest, dayCount}.
--
-- KEYS: key log, account log, account day counter
-- ARGV: now, member, key limit, account limit, day limit (-1 = none), window ms, day TTL ms
local now = tonumber(ARGV[1])
local kLimit, aLimit, dLimit, win = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
local blocked, f = rate_check(KEYS[1], KEYS[2], KEYS[3], now, kLimit, aLimit, dLimit, win)
if blocked then return {0, unpack(f)} end
rate_record(KEYS[1], KEYS[2], KEYS[3], now, ARGV[2], kLimit, aLimit, dLimit, win, ARGV[7], f)
return {1, unpack(f)}
