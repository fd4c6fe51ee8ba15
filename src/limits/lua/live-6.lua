--- @include "includes/holds"
-- Live usage of a key for `GET /v1/key`: its in-flight holds (after dropping expired ones)
-- and the requests in its sliding window.
--
-- KEYS: holds, holdinfo, held, kheld, key log, account log
-- ARGV: now, keyId, window ms
local now = tonumber(ARGV[1])
purge_holds(KEYS[1], KEYS[2], KEYS[3], KEYS[4], now)
local held = redis.call('HGET', KEYS[4], ARGV[2]) or '0'
local since = '(' .. tostring(now - tonumber(ARGV[3]))
return {held, redis.call('ZCOUNT', KEYS[5], since, '+inf'), redis.call('ZCOUNT', KEYS[6], since, '+inf')}
