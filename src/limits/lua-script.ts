import { createHash } from 'node:crypto';
import type { Redis } from '../redis/redis.js';

/**
 * A Lua script run by its SHA, loaded on first use and again after Redis lost its script
 * cache (restart, FLUSHALL with SCRIPT FLUSH), so each call sends only the SHA.
 */
export class LuaScript {
  private readonly sha: string;

  constructor(private readonly source: string) {
    this.sha = createHash('sha1').update(source).digest('hex');
  }

  /** Runs the script atomically with the given keys and arguments. */
  async run(redis: Redis, keys: readonly string[], args: ReadonlyArray<string | number>): Promise<unknown> {
    try {
      return await redis.evalsha(this.sha, keys.length, ...keys, ...args);
    } catch (err) {
      if (!(err instanceof Error) || !err.message.startsWith('NOSCRIPT')) throw err;
      return redis.eval(this.source, keys.length, ...keys, ...args);
    }
  }
}

/** Shared Lua: drops expired holds and takes them out of the account and key totals. */
export const PURGE_HOLDS_LUA = `
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
`;
