--- @include "includes/holds"
--- @include "includes/rate"
-- Every admission decision of one request in one atomic step, in the refusal order: the
-- request rate (when given its arguments: the RPM check and count ride along instead of
-- taking a round trip of their own), spend caps (spent + in-flight holds of the key),
-- balance (mirror − in-flight holds of the account), the hold itself
-- (the full worst-case estimate: a request whose worst case does not fit every cap and the
-- balance is refused, never admitted with a smaller hold), and the stream slot lease.
-- Replies {rate, status...}: rate is {admitted, figures of rate-3.lua...} when this run
-- checked the rate, else empty (no rate arguments, or this request was counted by an earlier
-- run: the script runs again after a mirror rebuild or a balance re-read, and the request log
-- holding its member says so). Status `missing` names mirrors that must be rebuilt from
-- MongoDB first (nothing is written then, the rate count included); refusals carry the room
-- that was left (`cap`, name, room / `balance`, room); `rate` is the RPM refusal.
--
-- KEYS: bal, holds, holdinfo, held, kheld, spend life, spend day, spend month, streams,
--       key log, account log, account day counter
-- ARGV: now, requestId, keyId, estimate, needsBalance, cap life, cap day, cap month
--       (-1 = none), stream limit (-1 = not a stream), hold expiry, lease expiry, key TTL ms,
--       rate member, key rpm, account rpm, day limit (-1 = none), window ms, day TTL ms
local now = tonumber(ARGV[1])
local id = ARGV[2]
local keyId = ARGV[3]
purge_holds(KEYS[2], KEYS[3], KEYS[4], KEYS[5], now)
local prior = redis.call('HGET', KEYS[3], id)
if prior then
  return {{}, 'ok', string.sub(prior, 1, string.find(prior, ':', 1, true) - 1)}
end
local kLimit, aLimit, dLimit, win = tonumber(ARGV[14]), tonumber(ARGV[15]), tonumber(ARGV[16]), tonumber(ARGV[17])
local counting = kLimit >= 0 or aLimit >= 0
if counting then
  local log = KEYS[10]
  if kLimit < 0 then log = KEYS[11] end
  if redis.call('ZSCORE', log, ARGV[13]) then counting = false end
end
local rate, figures = {}, nil
if counting then
  local blocked
  blocked, figures = rate_check(KEYS[10], KEYS[11], KEYS[12], now, kLimit, aLimit, dLimit, win)
  if blocked then return {{0, unpack(figures)}, 'rate'} end
end
local caps = {{ARGV[6], KEYS[6], 'lifetime'}, {ARGV[7], KEYS[7], 'day'}, {ARGV[8], KEYS[8], 'month'}}
local missing = {'missing'}
if ARGV[5] == '1' and redis.call('EXISTS', KEYS[1]) == 0 then table.insert(missing, 'balance') end
for _, c in ipairs(caps) do
  if c[1] ~= '-1' and redis.call('EXISTS', c[2]) == 0 then table.insert(missing, c[3]) end
end
if #missing > 1 then return {{}, unpack(missing)} end
if counting then
  rate_record(KEYS[10], KEYS[11], KEYS[12], now, ARGV[13], kLimit, aLimit, dLimit, win, ARGV[18], figures)
  rate = {1, unpack(figures)}
end
local need = tonumber(ARGV[4])
local keyHeld = tonumber(redis.call('HGET', KEYS[5], keyId) or '0')
for _, c in ipairs(caps) do
  if c[1] ~= '-1' then
    local left = tonumber(c[1]) - num(c[2]) - keyHeld
    if left <= 0 or left < need then return {rate, 'cap', c[3], string.format('%.0f', left)} end
  end
end
if ARGV[5] == '1' then
  local available = num(KEYS[1]) - num(KEYS[4])
  if available <= 0 or available < need then return {rate, 'balance', string.format('%.0f', available)} end
end
local limit = tonumber(ARGV[9])
if limit >= 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[9], '-inf', now)
  if redis.call('ZCARD', KEYS[9]) >= limit then return {rate, 'streams'} end
  redis.call('ZADD', KEYS[9], ARGV[11], id)
  redis.call('PEXPIRE', KEYS[9], ARGV[12])
end
if need > 0 then
  local amount = ARGV[4]
  redis.call('ZADD', KEYS[2], ARGV[10], id)
  redis.call('HSET', KEYS[3], id, amount .. ':' .. keyId)
  redis.call('INCRBY', KEYS[4], amount)
  redis.call('HINCRBY', KEYS[5], keyId, amount)
  for i = 2, 5 do redis.call('PEXPIRE', KEYS[i], ARGV[12]) end
  return {rate, 'ok', amount}
end
return {rate, 'ok', '0'}
