--- @include "includes/holds"
-- Frees a request's hold and stream slot and, once per request id, applies what the ledger
-- charged to the tracked mirrors: an existing mirror takes it unless its rebuild already
-- counted it (baked set); for a missing one it is recorded as unapplied, for the rebuild to
-- add if its MongoDB snapshot predates the charge (see LOAD_MIRROR).
--
-- KEYS: bal, holds, holdinfo, held, kheld, streams, spend life, spend day, spend month, applied,
--       unapplied ×4 (bal, life, day, month), baked ×4 (same order)
-- ARGV: requestId, charged (-1 = nothing charged), cost, applied-marker TTL ms, charged at (ms),
--       unapplied TTL ms, tracked flags ×4 ('1' = mirror in use; same order)
local id = ARGV[1]
drop_hold(KEYS[2], KEYS[3], KEYS[4], KEYS[5], id)
redis.call('ZREM', KEYS[6], id)
local function settle(mirror, unapplied, baked, delta)
  if redis.call('EXISTS', mirror) == 1 then
    if redis.call('SISMEMBER', baked, id) == 0 then redis.call('INCRBY', mirror, delta) end
  else
    redis.call('HSET', unapplied, id, delta .. ':' .. ARGV[5])
    redis.call('PEXPIRE', unapplied, ARGV[6])
  end
end
if ARGV[2] ~= '-1' and redis.call('SET', KEYS[10], '1', 'NX', 'PX', ARGV[4]) then
  local mirrors = {KEYS[1], KEYS[7], KEYS[8], KEYS[9]}
  local deltas = {'-' .. ARGV[2], ARGV[3], ARGV[3], ARGV[3]}
  for i = 1, 4 do
    if ARGV[6 + i] == '1' and tonumber(deltas[i]) ~= 0 then settle(mirrors[i], KEYS[10 + i], KEYS[14 + i], deltas[i]) end
  end
end
return 1
