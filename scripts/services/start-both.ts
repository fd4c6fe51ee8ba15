import { runOnce } from './run-once.js';
import type { RunningService, StartedServices } from './service-types.js';

/** Starters for the stores one backend provides; an absent starter means "not needed". */
export interface Starters {
  readonly redis?: () => Promise<RunningService>;
  readonly mongo?: () => Promise<RunningService>;
}

/**
 * Runs the starters in parallel (mongod under Wine is the slow one) and, if either fails, stops
 * the one that did start before rethrowing, so a failed start leaves no process behind.
 */
export async function startBoth(starters: Starters): Promise<StartedServices> {
  const [redis, mongo] = await Promise.allSettled([
    starters.redis ? starters.redis() : Promise.resolve(undefined),
    starters.mongo ? starters.mongo() : Promise.resolve(undefined),
  ]);
  if (redis.status === 'fulfilled' && mongo.status === 'fulfilled') {
    const started = [redis.value, mongo.value];
    const stop = runOnce(async () => void (await Promise.all(started.map((service) => service?.stop()))));
    return { redis: redis.value, mongo: mongo.value, stop };
  }
  await Promise.all(
    [redis, mongo].map((result) => (result.status === 'fulfilled' ? result.value?.stop() : undefined)),
  );
  const failures = [redis, mongo].flatMap((result) => (result.status === 'rejected' ? [result.reason] : []));
  const messages = failures.map((reason) => (reason instanceof Error ? reason.message : String(reason)));
  throw new Error(messages.join('\n'));
}
