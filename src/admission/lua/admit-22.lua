--- @include "includes/holds"
--- @include "includes/rate"
--- @include "includes/tpm"
-- Every admission decision of one request in one atomic step, in the refusal order: the
-- request rate (when given its arguments: the RPM checks and count ride along instead of
-- taking a round trip of their own), tokens per minute (the reservation of key, account and
-- end user), spend caps (spent + in-flight holds of the key, the account or the end user, per
-- window), balance (mirror − in-flight holds of the account), the hold itself (the full
-- worst-case estimate: a request whose worst case does not fit every cap and the balance is
-- refused, never admitted with a smaller hold), and the stream slot lease.
-- Replies {rate, status...}: rate is {admitted, figures of rate-4.lua...} when this run
-- checked the rate, else empty (no rate arguments, or this request was counted by an earlier
-- run: the script runs again after a mirror rebuild or a balance re-read, and the request log
-- holding its member says so). Status `missing` names mirrors that must be rebuilt from
-- MongoDB first (nothing is written then, the rate count included); refusals carry the room
-- that was left (`cap`, mirror name, room / `balance`, room); `rate` is the RPM refusal;
-- `tpm`, scope (1 account, 2 key, 3 end user), limit, used, retry at (0 = never fits).
--
-- KEYS: bal, holds, holdinfo, held, kheld, streams, key log, account log, account day counter,
--       end-user log, tpm, tpm info, spend ×10 (key lifetime, day, week, month; account day,
--       week, month; end user day, week, month)
-- ARGV: now, requestId, keyId, end user ('' = none), estimate, needsBalance, stream limit
--       (-1 = not a stream), hold expiry, lease expiry, key TTL ms, tokens, tpm limits ×3
--       (account, key, end user; -1 = none), caps ×10 (as the spend KEYS; -1 = none),
--       rate member, key rpm, account rpm, day limit, window ms, day TTL ms, end-user rpm
local now = tonumber(ARGV[1])
local id, keyId, eu = ARGV[2], ARGV[3], ARGV[4]
local holder = keyId
if eu ~= '' then holder = keyId .. '|' .. eu end
purge_holds(KEYS[2], KEYS[3], KEYS[4], KEYS[5], now)
local prior = redis.call('HGET', KEYS[3], id)
if prior then
  return {{}, 'ok', string.sub(prior, 1, string.find(prior, ':', 1, true) - 1)}
end
local kLimit, aLimit, dLimit, win, uLimit = tonumber(ARGV[26]), tonumber(ARGV[27]), tonumber(ARGV[28]), tonumber(ARGV[29]), tonumber(ARGV[31])
local counting = kLimit >= 0 or aLimit >= 0 or uLimit >= 0
if counting then
  local log = KEYS[7]
  if kLimit < 0 then log = KEYS[8] end
  if kLimit < 0 and aLimit < 0 then log = KEYS[10] end
  if redis.call('ZSCORE', log, ARGV[25]) then counting = false end
end
local rate, figures = {}, nil
if counting then
  local blocked
  blocked, figures = rate_check(KEYS[7], KEYS[8], KEYS[9], KEYS[10], now, kLimit, aLimit, dLimit, uLimit, win)
  if blocked then return {{0, unpack(figures)}, 'rate'} end
end
local tokens = tonumber(ARGV[11])
local tpmLimits = {tonumber(ARGV[12]), tonumber(ARGV[13]), tonumber(ARGV[14])}
local tpmOn = tpmLimits[1] >= 0 or tpmLimits[2] >= 0 or tpmLimits[3] >= 0
if tpmOn then
  tpm_trim(KEYS[11], KEYS[12], now, win)
  local over = tpm_check(KEYS[11], KEYS[12], now, win, tokens, keyId, eu, tpmLimits)
  if over then return {rate, 'tpm', over[1], over[2], over[3], string.format('%.0f', over[4])} end
end
local names = {'lifetime', 'day', 'week', 'month', 'account:day', 'account:week', 'account:month', 'user:day', 'user:week', 'user:month'}
local missing = {'missing'}
if ARGV[6] == '1' and redis.call('EXISTS', KEYS[1]) == 0 then table.insert(missing, 'balance') end
for i = 1, 10 do
  if ARGV[14 + i] ~= '-1' and redis.call('EXISTS', KEYS[12 + i]) == 0 then table.insert(missing, names[i]) end
end
if #missing > 1 then return {{}, unpack(missing)} end
if counting then
  rate_record(KEYS[7], KEYS[8], KEYS[9], KEYS[10], now, ARGV[25], kLimit, aLimit, dLimit, uLimit, win, ARGV[30], figures)
  rate = {1, unpack(figures)}
end
local need = tonumber(ARGV[5])
local held = {
  tonumber(redis.call('HGET', KEYS[5], keyId) or '0'),
  num(KEYS[4]),
  tonumber(redis.call('HGET', KEYS[5], holder) or '0'),
}
for i = 1, 10 do
  if ARGV[14 + i] ~= '-1' then
    local scope = 1
    if i > 7 then scope = 3 elseif i > 4 then scope = 2 end
    local left = tonumber(ARGV[14 + i]) - num(KEYS[12 + i]) - held[scope]
    if left <= 0 or left < need then return {rate, 'cap', names[i], string.format('%.0f', left)} end
  end
end
if ARGV[6] == '1' then
  local available = num(KEYS[1]) - num(KEYS[4])
  if available <= 0 or available < need then return {rate, 'balance', string.format('%.0f', available)} end
end
local limit = tonumber(ARGV[7])
if limit >= 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[6], '-inf', now)
  if redis.call('ZCARD', KEYS[6]) >= limit then return {rate, 'streams'} end
  redis.call('ZADD', KEYS[6], ARGV[9], id)
  redis.call('PEXPIRE', KEYS[6], ARGV[10])
end
if tpmOn then tpm_record(KEYS[11], KEYS[12], id, now, tokens, keyId, eu, win) end
if need > 0 then
  add_hold(KEYS[2], KEYS[3], KEYS[4], KEYS[5], id, ARGV[5], holder, ARGV[8])
  for i = 2, 5 do redis.call('PEXPIRE', KEYS[i], ARGV[10]) end
  return {rate, 'ok', ARGV[5]}
end
return {rate, 'ok', '0'}
