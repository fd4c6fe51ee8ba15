--- @include "includes/holds"
--- @include "includes/charges"
-- Carries a batch of charges settled from slices to Redis, in order, each as FINISH does for a
-- request admitted from a slice: its own hold (if any) and stream slot are dropped, what the
-- ledger charged is applied to the tracked mirrors (includes/charges.lua), and the slice it was
-- admitted from shrinks by the cost. (Its token reservation is kept, as FINISH keeps it when
-- told -1 tokens.) One call carries the charges whose FINISH would name the same keys but for
-- their applied markers: one scope, one period.
--
-- A batch applies once, by its marker: a process sends a batch again only whole and unchanged
-- (its reply was lost), and no charge is ever in two batches, so one marker per batch stands
-- for one per charge without a key (and a string for the web to build and send) for each.
--
-- KEYS: mirrors ×11 (FINISH's order), holds, holdinfo, held, kheld, streams, unapplied ×11,
--       baked ×11 (same order as the mirrors), the batch's applied marker
-- ARGV: applied-marker TTL ms, unapplied TTL ms, tracked flags ×11 ('1' = mirror in use), then
--       the charges, one line each, space-separated: request id, charged (-1 = nothing
--       charged), cost, charged at (ms), position in its account's chain ('' while only
--       spooled), slice to shrink ('' = none: it was placed again in a newer Redis generation,
--       which no longer counted the charge).
local MARKER, CHARGES = 39, 14
local FIGURES = '^(%S+) (%-?%d+) (%-?%d+) (%-?%d+) (%d*) ([%w_%-]*)$'
if #ARGV ~= CHARGES then return redis.error_reply('APPLY_SLICE_CHARGES: ' .. #ARGV .. ' arguments, not ' .. CHARGES) end
-- Checked before anything is written: a malformed charge would leave the batch half applied.
local charges = {}
for line in string.gmatch(ARGV[CHARGES], '[^\n]+') do
  local id, charged, cost, at, seq, shrink = string.match(line, FIGURES)
  if not id then return redis.error_reply('APPLY_SLICE_CHARGES: charge ' .. (#charges + 1) .. ' has malformed figures') end
  charges[#charges + 1] = { id, charged, cost, at, seq, shrink }
end
-- -1: the batch was applied before.
if not redis.call('SET', KEYS[MARKER], '1', 'NX', 'PX', ARGV[1]) then return -1 end
for c = 1, #charges do
  local id, charged, cost, at, seq, shrink = unpack(charges[c])
  drop_hold(KEYS[12], KEYS[13], KEYS[14], KEYS[15], id)
  redis.call('ZREM', KEYS[16], id)
  if charged ~= '-1' then
    settle_mirrors(0, 16, 27, 2, ARGV[2], id, charged, cost, at, seq)
    if shrink ~= '' then shrink_hold(KEYS[12], KEYS[13], KEYS[14], KEYS[15], shrink, cost) end
  end
end
return #charges
