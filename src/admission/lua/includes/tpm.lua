-- Token reservations per minute (TPM) of one account over a sliding window: a ZSET of request
-- ids by admission time, and a HASH of `tokens:keyId:endUser` per request id plus the running
-- total of each scope (`a` the account, `k:<keyId>` a key, `u:<keyId>|<endUser>` an end user).
-- Limits come in that order; -1 means none.
local function tpm_fields(keyId, eu)
  local f = {'a', 'k:' .. keyId}
  if eu ~= '' then table.insert(f, 'u:' .. keyId .. '|' .. eu) end
  return f
end
local function tpm_entry(v)
  local s1 = string.find(v, ':', 1, true)
  local s2 = string.find(v, ':', s1 + 1, true)
  return tonumber(string.sub(v, 1, s1 - 1)), string.sub(v, s1 + 1, s2 - 1), string.sub(v, s2 + 1)
end
-- Adds (sign 1) or takes out (sign -1) one reservation from the totals of its scopes.
local function tpm_count(info, v, sign)
  local n, keyId, eu = tpm_entry(v)
  -- Nothing to move; and Lua would send 0 × -1 as '-0', which Redis does not take as an integer.
  if n == 0 then return end
  for _, f in ipairs(tpm_fields(keyId, eu)) do
    if redis.call('HINCRBY', info, f, sign * n) <= 0 then redis.call('HDEL', info, f) end
  end
end
local function tpm_trim(zset, info, now, win)
  for _, id in ipairs(redis.call('ZRANGEBYSCORE', zset, '-inf', now - win)) do
    local v = redis.call('HGET', info, id)
    if v then
      tpm_count(info, v, -1)
      redis.call('HDEL', info, id)
    end
  end
  redis.call('ZREMRANGEBYSCORE', zset, '-inf', now - win)
end
-- When enough of a scope's reservations leave the window for `excess` more tokens to fit.
local function tpm_retry_at(zset, info, scope, keyId, eu, excess, win)
  local entries = redis.call('ZRANGE', zset, 0, -1, 'WITHSCORES')
  for i = 1, #entries, 2 do
    local v = redis.call('HGET', info, entries[i])
    if v then
      local n, k, e = tpm_entry(v)
      if scope == 1 or (k == keyId and (scope == 2 or e == eu)) then
        excess = excess - n
        if excess <= 0 then return tonumber(entries[i + 1]) + win end
      end
    end
  end
  return 0
end
-- Nil when `need` tokens fit every limit; else {scope, limit, used, retryAt} of the limit that
-- clears last (retryAt 0: the request alone exceeds the limit and never fits).
local function tpm_check(zset, info, now, win, need, keyId, eu, limits)
  local worst = nil
  for i, f in ipairs(tpm_fields(keyId, eu)) do
    local limit = limits[i]
    if limit >= 0 then
      local used = tonumber(redis.call('HGET', info, f) or '0')
      if used + need > limit then
        local at = 0
        if need <= limit then at = tpm_retry_at(zset, info, i, keyId, eu, used + need - limit, win) end
        if worst == nil or at == 0 or (worst[4] ~= 0 and at > worst[4]) then worst = {i, limit, used, at} end
      end
    end
  end
  return worst
end
local function tpm_record(zset, info, id, now, need, keyId, eu, win)
  local v = need .. ':' .. keyId .. ':' .. eu
  redis.call('ZADD', zset, now, id)
  redis.call('HSET', info, id, v)
  tpm_count(info, v, 1)
  redis.call('PEXPIRE', zset, win * 2)
  redis.call('PEXPIRE', info, win * 2)
end
-- Replaces a reservation still in the window with the tokens billed.
local function tpm_settle(info, id, billed)
  local v = redis.call('HGET', info, id)
  if not v then return end
  local n, keyId, eu = tpm_entry(v)
  if n == billed then return end
  tpm_count(info, v, -1)
  local nv = billed .. ':' .. keyId .. ':' .. eu
  redis.call('HSET', info, id, nv)
  tpm_count(info, nv, 1)
end
