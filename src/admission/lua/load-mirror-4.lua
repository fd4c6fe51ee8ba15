-- Stores a mirror rebuilt from one consistent MongoDB snapshot, exactly, whatever charges
-- settled around the read:
-- - a charge settled (FINISH) while the mirror was missing sits in the unapplied hash; it is
--   added unless the snapshot already contains it;
-- - a charge the snapshot contains whose FINISH has not run yet is recorded in the baked set,
--   so that FINISH does not apply it a second time.
-- Nothing is stored if the mirror exists already, if it was invalidated since the caller read
-- MongoDB (version changed: a top-up may be missing), or if an unapplied charge cannot be
-- placed (older than the snapshot's window and not checked by id): the caller reads again.
--
-- KEYS: mirror, unapplied, baked, version
-- ARGV: figure, mirror TTL ms, expected version, window start ms, n checked, checked ids…,
--       snapshot ids…
if redis.call('EXISTS', KEYS[1]) == 1 then return 'exists' end
if (redis.call('GET', KEYS[4]) or '0') ~= ARGV[3] then return 'stale' end
local since = tonumber(ARGV[4])
local nChecked = tonumber(ARGV[5])
local checked, snapshot, ids = {}, {}, {}
for i = 6, 5 + nChecked do checked[ARGV[i]] = true end
for i = 6 + nChecked, #ARGV do
  snapshot[ARGV[i]] = true
  table.insert(ids, ARGV[i])
end
local value = tonumber(ARGV[1])
local pending = redis.call('HGETALL', KEYS[2])
for i = 1, #pending, 2 do
  local id = pending[i]
  if not snapshot[id] then
    local entry = pending[i + 1]
    local sep = string.find(entry, ':', 1, true)
    local at = tonumber(string.sub(entry, sep + 1))
    -- Not in the snapshot: committed after it, unless it is older than the window searched.
    if at < since and not checked[id] then return 'retry' end
    value = value + tonumber(string.sub(entry, 1, sep - 1))
  end
end
redis.call('SET', KEYS[1], string.format('%.0f', value), 'PX', ARGV[2])
redis.call('DEL', KEYS[2], KEYS[3])
for i = 1, #ids, 1000 do
  redis.call('SADD', KEYS[3], unpack(ids, i, math.min(i + 999, #ids)))
end
redis.call('PEXPIRE', KEYS[3], ARGV[2])
return 'ok'
