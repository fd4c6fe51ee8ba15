--- @include "includes/holds"
--- @include "includes/charges"
-- Carries charges settled from slices to Redis, in order, each exactly as FINISH does for a
-- request admitted from a slice: its own hold (if any) and stream slot are dropped, what the
-- ledger charged is applied to the tracked mirrors once per request id (includes/charges.lua),
-- and, once applied, the slice it was admitted from shrinks by the cost. (Its token
-- reservation is kept, as FINISH keeps it when told -1 tokens.) One call carries the charges
-- whose FINISH would name the same keys but for their applied markers: one scope, one period.
--
-- KEYS: mirrors ×11 (FINISH's order), holds, holdinfo, held, kheld, streams, unapplied ×11,
--       baked ×11 (same order as the mirrors), then each charge's applied marker
-- ARGV: applied-marker TTL ms, unapplied TTL ms, tracked flags ×11 ('1' = mirror in use), then
--       one argument per charge, space-separated: request id, charged (-1 = nothing charged),
--       cost, charged at (ms), position in its account's chain ('' while only spooled), slice
--       to shrink ('' = none: it was placed again in a newer Redis generation, which no longer
--       counted the charge). One argument, not six: a batch of sixty charges is that many fewer
--       for the web to encode and for Redis to read.
local FIXED, FIXED_ARGS = 38, 13
local FIGURES = '^(%S+) (%-?%d+) (%-?%d+) (%-?%d+) (%d*) ([%w_%-]*)$'
local n = #KEYS - FIXED
-- Checked before anything is written: a short list would shift every charge after it, and a
-- malformed charge would leave the batch half applied.
if #ARGV ~= FIXED_ARGS + n then return redis.error_reply('APPLY_SLICE_CHARGES: ' .. n .. ' markers, ' .. #ARGV .. ' arguments') end
local charges = {}
for c = 1, n do
  local id, charged, cost, at, seq, shrink = string.match(ARGV[FIXED_ARGS + c], FIGURES)
  if not id then return redis.error_reply('APPLY_SLICE_CHARGES: charge ' .. c .. ' has malformed figures') end
  charges[c] = { id, charged, cost, at, seq, shrink }
end
for c = 1, n do
  local id, charged, cost, at, seq, shrink = unpack(charges[c])
  drop_hold(KEYS[12], KEYS[13], KEYS[14], KEYS[15], id)
  redis.call('ZREM', KEYS[16], id)
  if apply_charge(0, 16, 27, 2, KEYS[FIXED + c], ARGV[1], ARGV[2], id, charged, cost, at, seq) and shrink ~= '' then
    shrink_hold(KEYS[12], KEYS[13], KEYS[14], KEYS[15], shrink, cost)
  end
end
return n
