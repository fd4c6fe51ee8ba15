--- @include "includes/holds"
-- Places a request's hold and slot again under a new Redis generation (after Redis lost or
-- rewound data), unless already there. KEYS: holds, holdinfo, held, kheld, streams.
-- ARGV: requestId, amount, holder (`keyId` or `keyId|endUser`), hold expiry, stream expiry
-- (-1 = no slot), container TTL ms.
local id, amount = ARGV[1], ARGV[2]
if amount ~= '0' and redis.call('HEXISTS', KEYS[2], id) == 0 then
  add_hold(KEYS[1], KEYS[2], KEYS[3], KEYS[4], id, amount, ARGV[3], ARGV[4])
  for i = 1, 4 do redis.call('PEXPIRE', KEYS[i], ARGV[6]) end
end
if ARGV[5] ~= '-1' then
  redis.call('ZADD', KEYS[5], ARGV[5], id)
  redis.call('PEXPIRE', KEYS[5], ARGV[6])
end
return 1
