--- @include "includes/holds"
--- @include "includes/tpm"
-- Live usage for `GET /v1/key`: in-flight holds (after dropping expired ones) of the key, the
-- account and the end user, the requests in their sliding windows, and their token
-- reservations of the last minute.
--
-- KEYS: holds, holdinfo, held, kheld, key log, account log, end-user log, tpm, tpm info
-- ARGV: now, keyId, window ms, end user ('' = none)
-- Replies {key held, key requests, account requests, account held, end-user held, end-user
-- requests, account tokens, key tokens, end-user tokens}.
local now = tonumber(ARGV[1])
local keyId, eu = ARGV[2], ARGV[4]
purge_holds(KEYS[1], KEYS[2], KEYS[3], KEYS[4], now)
tpm_trim(KEYS[8], KEYS[9], now, tonumber(ARGV[3]))
local since = '(' .. tostring(now - tonumber(ARGV[3]))
local userHeld, userCount, userTokens = '0', 0, '0'
if eu ~= '' then
  userHeld = redis.call('HGET', KEYS[4], keyId .. '|' .. eu) or '0'
  userCount = redis.call('ZCOUNT', KEYS[7], since, '+inf')
  userTokens = redis.call('HGET', KEYS[9], 'u:' .. keyId .. '|' .. eu) or '0'
end
return {
  redis.call('HGET', KEYS[4], keyId) or '0',
  redis.call('ZCOUNT', KEYS[5], since, '+inf'),
  redis.call('ZCOUNT', KEYS[6], since, '+inf'),
  redis.call('GET', KEYS[3]) or '0',
  userHeld,
  userCount,
  redis.call('HGET', KEYS[9], 'a') or '0',
  redis.call('HGET', KEYS[9], 'k:' .. keyId) or '0',
  userTokens,
}
