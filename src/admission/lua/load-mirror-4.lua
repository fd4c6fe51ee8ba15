-- Stores a mirror rebuilt from one consistent MongoDB snapshot, exactly, whatever charges
-- settled around the read:
-- - a charge settled (FINISH) while the mirror was missing sits in the unapplied hash; it is
--   added unless the snapshot already contains it: its chain position (seq) is at most the
--   snapshot's head, or the snapshot listed its id;
-- - a charge the snapshot contains whose FINISH has not run yet is told apart by its chain
--   position: the head is kept in the unapplied hash ('#head') for FINISH to compare. When
--   the caller listed the window's charges (a FINISH may carry no position: charges
--   acknowledged from the local spool), they are also recorded in the baked set ('#window').
-- Nothing is stored if the mirror exists already, if it was invalidated since the caller read
-- MongoDB (version changed: a top-up may be missing), or if an unapplied charge cannot be
-- placed (no position, not checked by id, and not in a window listed): the caller reads again.
--
-- KEYS: mirror, unapplied, baked, version
-- ARGV: figure, mirror TTL ms, expected version, head seq, window start ms (-1: none listed),
--       n checked, checked ids…, snapshot ids…
if redis.call('EXISTS', KEYS[1]) == 1 then return 'exists' end
if (redis.call('GET', KEYS[4]) or '0') ~= ARGV[3] then return 'stale' end
local head = tonumber(ARGV[4])
local since = tonumber(ARGV[5])
local nChecked = tonumber(ARGV[6])
local checked, snapshot, ids = {}, {}, {}
for i = 7, 6 + nChecked do checked[ARGV[i]] = true end
for i = 7 + nChecked, #ARGV do
  snapshot[ARGV[i]] = true
  table.insert(ids, ARGV[i])
end
local value = tonumber(ARGV[1])
local pending = redis.call('HGETALL', KEYS[2])
for i = 1, #pending, 2 do
  local id = pending[i]
  if string.sub(id, 1, 1) ~= '#' and not snapshot[id] then
    -- delta:charged at ms[:seq]
    local delta, at, seq = string.match(pending[i + 1], '^([^:]+):([^:]+):?(%d*)$')
    seq = tonumber(seq)
    if seq then
      if seq > head then value = value + tonumber(delta) end
    elseif checked[id] or (since >= 0 and tonumber(at) >= since) then
      value = value + tonumber(delta)
    else
      return 'retry'
    end
  end
end
redis.call('SET', KEYS[1], string.format('%.0f', value), 'PX', ARGV[2])
redis.call('DEL', KEYS[2], KEYS[3])
redis.call('HSET', KEYS[2], '#head', ARGV[4])
if since >= 0 then
  redis.call('HSET', KEYS[2], '#window', '1')
  for i = 1, #ids, 1000 do
    redis.call('SADD', KEYS[3], unpack(ids, i, math.min(i + 999, #ids)))
  end
  redis.call('PEXPIRE', KEYS[3], ARGV[2])
end
redis.call('PEXPIRE', KEYS[2], ARGV[2])
return 'ok'
