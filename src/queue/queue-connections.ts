import { connectRedis, type Redis, type RedisTarget, WAIT_IT_OUT } from '../platform/redis/index.js';

/**
 * A connection for workers and event listeners: BullMQ requires `maxRetriesPerRequest: null`
 * for blocking commands, and these processes should wait out a Redis restart, so commands
 * queue while disconnected and the client reconnects forever (backing off up to 2 s).
 */
export function workerConnection(target: RedisTarget, name: string): Redis {
  return connectRedis(target, name, WAIT_IT_OUT);
}


/** Resolves when the promise settles or after `ms`, whichever comes first. */
export async function settleWithin(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([promise.catch(() => undefined), new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

/**
 * Closes a connection: QUIT when Redis answers within a second, otherwise a hard disconnect.
 * A client that is between reconnect attempts would queue the QUIT (or never emit `end`)
 * and stall a shutdown.
 */
export async function closeConnection(redis: Redis): Promise<void> {
  await settleWithin(redis.quit(), 1_000);
  redis.disconnect();
}
