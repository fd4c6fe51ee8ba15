--- @include "includes/holds"
--- @include "includes/tpm"
-- Frees a request's hold and stream slot, replaces its token reservation (TPM) with the
-- tokens billed and, once per request id, applies what the ledger charged to the tracked
-- mirrors: an existing mirror takes it unless its rebuild already counted it (a chain position
-- at most the rebuild's head, or, without a position, an id in the baked set of a rebuild that
-- listed its window); a mirror that cannot tell is dropped, and for a missing one the charge is
-- recorded as unapplied, for the rebuild to add if its MongoDB snapshot predates the charge
-- (see LOAD_MIRROR).
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
local seq = tonumber(ARGV[19])
-- Whether the rebuild behind an existing mirror counted this charge; nil when it cannot tell.
local function counted(unapplied, baked)
  local built = redis.call('HMGET', unapplied, '#head', '#window')
  local head = tonumber(built[1])
  if seq and head then return seq <= head end
  if built[2] then return redis.call('SISMEMBER', baked, id) == 1 end
  return nil
end
local function settle(mirror, unapplied, baked, delta)
  if redis.call('EXISTS', mirror) == 1 then
    local done = counted(unapplied, baked)
    if done ~= nil then
      if not done then redis.call('INCRBY', mirror, delta) end
      return
    end
    -- The next rebuild looks this charge up by id.
    redis.call('DEL', mirror)
  end
  redis.call('HSET', unapplied, id, delta .. ':' .. ARGV[5] .. ':' .. ARGV[19])
  redis.call('PEXPIRE', unapplied, ARGV[6])
end
if ARGV[2] ~= '-1' and redis.call('SET', KEYS[19], '1', 'NX', 'PX', ARGV[4]) then
  for i = 1, 11 do
    local delta = ARGV[3]
    if i == 1 then delta = '-' .. ARGV[2] end
    if ARGV[7 + i] == '1' and tonumber(delta) ~= 0 then settle(KEYS[i], KEYS[19 + i], KEYS[30 + i], delta) end
  end
  if ARGV[20] and ARGV[20] ~= '' then shrink_hold(KEYS[12], KEYS[13], KEYS[14], KEYS[15], ARGV[20], ARGV[3]) end
end
return 1
