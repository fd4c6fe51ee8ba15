-- Shared by the scripts that touch holds: places and drops holds, keeping the account total
-- and the per-holder totals (kheld: `<keyId>` and, for a request naming an end user,
-- `<keyId>|<endUser>`) in step; num() reads a counter that may be missing.
local function holder_fields(holder)
  local bar = string.find(holder, '|', 1, true)
  if bar then return {string.sub(holder, 1, bar - 1), holder} end
  return {holder}
end
local function add_hold(holds, info, total, kheld, id, amount, holder, expiry)
  redis.call('ZADD', holds, expiry, id)
  redis.call('HSET', info, id, amount .. ':' .. holder)
  redis.call('INCRBY', total, amount)
  for _, f in ipairs(holder_fields(holder)) do redis.call('HINCRBY', kheld, f, amount) end
end
local function drop_hold(holds, info, total, kheld, id)
  local v = redis.call('HGET', info, id)
  if v then
    local sep = string.find(v, ':', 1, true)
    local amt = tonumber(string.sub(v, 1, sep - 1))
    redis.call('DECRBY', total, amt)
    for _, f in ipairs(holder_fields(string.sub(v, sep + 1))) do
      if redis.call('HINCRBY', kheld, f, -amt) <= 0 then redis.call('HDEL', kheld, f) end
    end
    redis.call('HDEL', info, id)
  end
  redis.call('ZREM', holds, id)
end
-- Takes `amount` off a hold (a process's slice whose charge now counts in the spend mirrors);
-- a hold taken to zero is dropped.
local function shrink_hold(holds, info, total, kheld, id, amount)
  local v = redis.call('HGET', info, id)
  if not v then return end
  local sep = string.find(v, ':', 1, true)
  local amt = tonumber(string.sub(v, 1, sep - 1))
  local take = math.min(amt, tonumber(amount))
  if take <= 0 then return end
  local holder = string.sub(v, sep + 1)
  redis.call('DECRBY', total, take)
  for _, f in ipairs(holder_fields(holder)) do
    if redis.call('HINCRBY', kheld, f, -take) <= 0 then redis.call('HDEL', kheld, f) end
  end
  if amt - take <= 0 then
    redis.call('HDEL', info, id)
    redis.call('ZREM', holds, id)
  else
    redis.call('HSET', info, id, string.format('%.0f', amt - take) .. ':' .. holder)
  end
end
local function purge_holds(holds, info, total, kheld, now)
  for _, id in ipairs(redis.call('ZRANGEBYSCORE', holds, '-inf', now)) do
    drop_hold(holds, info, total, kheld, id)
  end
end
local function num(key)
  return tonumber(redis.call('GET', key) or '0') or 0
end
