-- Drops a mirror so the next request re-reads MongoDB (a credit changed it), and bumps its
-- version so a rebuild that read MongoDB before the credit does not store its stale figure.
--
-- KEYS: mirror, version
-- ARGV: version TTL ms
redis.call('DEL', KEYS[1])
redis.call('INCR', KEYS[2])
redis.call('PEXPIRE', KEYS[2], ARGV[1])
return 1
