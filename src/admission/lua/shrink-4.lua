--- @include "includes/holds"
-- Hands back the unused part of a process's slice: its hold shrinks by the amount (dropped at
-- zero), so a request near a limit sees the room the slice no longer needs.
--
-- KEYS: holds, holdinfo, held, kheld
-- ARGV: slice id, amount
shrink_hold(KEYS[1], KEYS[2], KEYS[3], KEYS[4], ARGV[1], ARGV[2])
return 1
