import { Redis } from 'ioredis';
import { redisTlsOptions, redisUrlOf, type RedisTarget } from './redis-tls.js';

/**
 * A Redis connection for admission state and caches. Commands fail fast while disconnected
 * (no offline queue) so that callers can answer 503 instead of hanging, and the client keeps
 * reconnecting in the background so service resumes by itself. `rediss://` targets connect over
 * TLS, with the verification setting the target carries.
 */
export function createRedis(target: RedisTarget, name: string): Redis {
  return new Redis(redisUrlOf(target), {
    ...redisTlsOptions(target),
    connectionName: name,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2_000,
    retryStrategy: (attempt) => Math.min(attempt * 100, 1_000),
    lazyConnect: false,
  });
}

/** Resolves once the client is ready (used at boot, where waiting is the right thing). */
export async function waitReady(redis: Redis, timeoutMs = 10_000): Promise<void> {
  if (redis.status === 'ready') return;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('Redis not ready in time')), timeoutMs);
    redis.once('ready', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

export type { Redis, RedisTarget };
