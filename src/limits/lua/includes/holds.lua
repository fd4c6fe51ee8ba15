-- Shared by the scripts that touch holds: drops expired holds and takes them out of the
-- account and key totals; num() reads a counter that may be missing.
local function drop_hold(holds, info, total, kheld, id)
  local v = redis.call('HGET', info, id)
  if v then
    local sep = string.find(v, ':', 1, true)
    local amt = tonumber(string.sub(v, 1, sep - 1))
    redis.call('DECRBY', total, amt)
    redis.call('HINCRBY', kheld, string.sub(v, sep + 1), -amt)
    redis.call('HDEL', info, id)
  end
  redis.call('ZREM', holds, id)
end
local function purge_holds(holds, info, total, kheld, now)
  for _, id in ipairs(redis.call('ZRANGEBYSCORE', holds, '-inf', now)) do
    drop_hold(holds, info, total, kheld, id)
  end
end
local function num(key)
  return tonumber(redis.call('GET', key) or '0') or 0
end
