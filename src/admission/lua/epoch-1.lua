-- Returns the generation to use and how long it must still settle (ms): the recorded one when
-- it was recorded by this very server run, else a new one (the server restarted, maybe from an
-- old snapshot, failed over, or the record is gone after FLUSHALL). Time is the server's, so
-- every process agrees. KEYS: epoch. ARGV: run_id, candidate generation, settle ms.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local cur = redis.call('HMGET', KEYS[1], 'gen', 'run_id', 'since')
if cur[1] and cur[2] == ARGV[1] then
  local left = tonumber(cur[3] or '0') + tonumber(ARGV[3]) - now
  if left < 0 then left = 0 end
  return {cur[1], left}
end
redis.call('HSET', KEYS[1], 'gen', ARGV[2], 'run_id', ARGV[1], 'since', now)
return {ARGV[2], tonumber(ARGV[3])}
