-- Places a request's hold and slot again under a new Redis generation (after Redis lost or
-- rewound data), unless already there. KEYS: holds, holdinfo, held, kheld, streams.
-- ARGV: requestId, amount, keyId, hold expiry, stream expiry (-1 = no slot), container TTL ms.
local id, amount = ARGV[1], ARGV[2]
if amount ~= '0' and redis.call('HEXISTS', KEYS[2], id) == 0 then
  redis.call('ZADD', KEYS[1], ARGV[4], id)
  redis.call('HSET', KEYS[2], id, amount .. ':' .. ARGV[3])
  redis.call('INCRBY', KEYS[3], amount)
  redis.call('HINCRBY', KEYS[4], ARGV[3], amount)
  for i = 1, 4 do redis.call('PEXPIRE', KEYS[i], ARGV[6]) end
end
if ARGV[5] ~= '-1' then
  redis.call('ZADD', KEYS[5], ARGV[5], id)
  redis.call('PEXPIRE', KEYS[5], ARGV[6])
end
return 1
