--- @include "includes/holds"
--- @include "includes/tpm"
--- @include "includes/charges"
-- Frees a request's hold and stream slot, replaces its token reservation (TPM) with the
-- tokens billed and, once per request id, applies what the ledger charged to the tracked
-- mirrors (see includes/charges.lua for how a rebuilt, missing or unsure mirror takes it).
--
-- KEYS: mirrors ×11 (bal; spend key lifetime, day, week, month; account day, week, month;
--       end user day, week, month), holds, holdinfo, held, kheld, streams, tpm, tpm info,
--       applied, unapplied ×11, baked ×11 (same order as the mirrors)
-- ARGV: requestId, charged (-1 = nothing charged), cost, applied-marker TTL ms, charged at (ms),
--       unapplied TTL ms, tokens billed (-1 = keep the reservation), tracked flags ×11 ('1' =
--       mirror in use; same order), the charge's position in its account's chain ('' while it
--       is only spooled), the slice the request was admitted from ('' = its own hold): once
--       the charge is applied, the slice shrinks by the cost, which the spend mirrors now count
local id = ARGV[1]
drop_hold(KEYS[12], KEYS[13], KEYS[14], KEYS[15], id)
redis.call('ZREM', KEYS[16], id)
if ARGV[7] ~= '-1' then tpm_settle(KEYS[18], id, tonumber(ARGV[7])) end
if apply_charge(0, 19, 30, 7, KEYS[19], ARGV[4], ARGV[6], id, ARGV[2], ARGV[3], ARGV[5], ARGV[19]) then
  if ARGV[20] and ARGV[20] ~= '' then shrink_hold(KEYS[12], KEYS[13], KEYS[14], KEYS[15], ARGV[20], ARGV[3]) end
end
return 1
