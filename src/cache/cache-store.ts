import type { Redis } from '../platform/redis/index.js';

/**
 * Stores one entry and keeps the cache within its byte bound, atomically. Entries whose TTL
 * lapsed give back their bytes first (up to 64 per call, so a call stays short); then the
 * oldest entries are evicted until the new one fits. KEYS: the entries by time stored, by
 * time of expiry, their sizes, the byte counter. ARGV: the entry keys' prefix, the entry's
 * name, its text, TTL ms, now ms, the byte bound. Returns {evicted, bytes held, stored 1|0}.
 * Every key shares one hash tag, so the script runs in one slot of a Redis Cluster too.
 */
const PUT = `local prefix, member, value = ARGV[1], ARGV[2], ARGV[3]
local ttl, now, max = tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
local size = string.len(value)
local function drop(m)
  local s = tonumber(redis.call('HGET', KEYS[3], m) or '0')
  redis.call('HDEL', KEYS[3], m)
  redis.call('ZREM', KEYS[1], m)
  redis.call('ZREM', KEYS[2], m)
  redis.call('DEL', prefix .. m)
  if s > 0 then redis.call('DECRBY', KEYS[4], s) end
end
for _, m in ipairs(redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now, 'LIMIT', 0, 64)) do drop(m) end
drop(member)
local evicted = 0
local total = tonumber(redis.call('GET', KEYS[4]) or '0')
while total + size > max and evicted < 10000 do
  local oldest = redis.call('ZRANGE', KEYS[1], 0, 0)[1]
  if not oldest then break end
  drop(oldest)
  evicted = evicted + 1
  total = tonumber(redis.call('GET', KEYS[4]) or '0')
end
if total + size > max then return {evicted, total, 0} end
redis.call('SET', prefix .. member, value, 'PX', ttl)
redis.call('ZADD', KEYS[1], now, member)
redis.call('ZADD', KEYS[2], now + ttl, member)
redis.call('HSET', KEYS[3], member, size)
total = redis.call('INCRBY', KEYS[4], size)
return {evicted, total, 1}`;

type Script = (...args: Array<string | number>) => Promise<unknown>;

/** What one store call did. */
export interface PutResult {
  readonly stored: boolean;
  readonly evicted: number;
  /** Bytes the cache holds after the call. */
  readonly bytes: number;
}

/**
 * The cache's entries in Redis: one string per entry with its own TTL, plus the index that
 * bounds the total (see PUT). Like everything in Redis the cache may be lost at any time;
 * losing it only turns hits into misses.
 */
export class CacheStore {
  private readonly put: Script;
  private readonly tag: string;

  constructor(
    private readonly redis: Redis,
    prefix: string,
  ) {
    this.tag = `${prefix}:cache:{${prefix}:cache}`;
    redis.defineCommand('fareboxCachePut', { numberOfKeys: 4, lua: PUT });
    const commands = redis as unknown as Record<string, Script>;
    this.put = (commands.fareboxCachePut as Script).bind(redis);
  }

  /** The stored text of an entry, or undefined. */
  async get(name: string): Promise<string | undefined> {
    return (await this.redis.get(this.entryKey(name))) ?? undefined;
  }

  /** Stores an entry for `ttlMs`, evicting the oldest entries past `maxBytes`. */
  async set(name: string, text: string, ttlMs: number, maxBytes: number, now: number): Promise<PutResult> {
    const t = this.tag;
    const reply = (await this.put(`${t}:age`, `${t}:exp`, `${t}:size`, `${t}:bytes`, `${t}:e:`, name, text, ttlMs, now, maxBytes)) as [number, number, number];
    return { evicted: Number(reply[0]), bytes: Number(reply[1]), stored: Number(reply[2]) === 1 };
  }

  private entryKey(name: string): string {
    return `${this.tag}:e:${name}`;
  }
}
