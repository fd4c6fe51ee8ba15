-- Shared by FINISH and APPLY_SLICE_CHARGES: applies what the ledger charged for one request to
-- the tracked mirrors, once (FINISH: per request id, by its applied marker; APPLY_SLICE_CHARGES:
-- per batch). An existing mirror takes the charge unless its rebuild already counted it (a
-- chain position at most the rebuild's head, or, without a position, an id in the baked set of
-- a rebuild that listed its window); a mirror that cannot tell is dropped, and for a missing
-- one the charge is recorded as unapplied, for the rebuild to add if its MongoDB snapshot
-- predates the charge (see LOAD_MIRROR).
--
-- Whether the rebuild behind an existing mirror counted charge `id` (chain position `seq`, nil
-- while only spooled); nil when it cannot tell.
local function charge_counted(unapplied, baked, id, seq)
  local built = redis.call('HMGET', unapplied, '#head', '#window')
  local head = tonumber(built[1])
  if seq and head then return seq <= head end
  if built[2] then return redis.call('SISMEMBER', baked, id) == 1 end
  return nil
end
-- `seq` as sent ('' while only spooled): the unapplied record keeps it as it came.
local function charge_settle(mirror, unapplied, baked, delta, id, at, seq, unapplied_ttl)
  if redis.call('EXISTS', mirror) == 1 then
    local done = charge_counted(unapplied, baked, id, tonumber(seq))
    if done ~= nil then
      if not done then redis.call('INCRBY', mirror, delta) end
      return
    end
    -- The next rebuild looks this charge up by id.
    redis.call('DEL', mirror)
  end
  redis.call('HSET', unapplied, id, delta .. ':' .. at .. ':' .. seq)
  redis.call('PEXPIRE', unapplied, unapplied_ttl)
end
-- The 11 mirrors (balance, then the spend mirrors), their unapplied and their baked keys are
-- KEYS[m + 1..m + 11], KEYS[u + 1..u + 11] and KEYS[b + 1..b + 11]; their tracked flags ('1' =
-- in use) ARGV[t + 1..t + 11]. The balance takes what left it (`charged`), each spend mirror the
-- cost.
local function settle_mirrors(m, u, b, t, unapplied_ttl, id, charged, cost, at, seq)
  for i = 1, 11 do
    local delta = cost
    if i == 1 then delta = '-' .. charged end
    if ARGV[t + i] == '1' and tonumber(delta) ~= 0 then charge_settle(KEYS[m + i], KEYS[u + i], KEYS[b + i], delta, id, at, seq, unapplied_ttl) end
  end
end
-- settle_mirrors once per request id (its `applied` marker). `charged` '-1': nothing was
-- charged. True when the charge was applied now (its marker was not set yet).
local function apply_charge(m, u, b, t, applied, applied_ttl, unapplied_ttl, id, charged, cost, at, seq)
  if charged == '-1' or not redis.call('SET', applied, '1', 'NX', 'PX', applied_ttl) then return false end
  settle_mirrors(m, u, b, t, unapplied_ttl, id, charged, cost, at, seq)
  return true
end
