import type { Logger } from 'pino';
import { listenOn, publishMessage } from './pub-sub.js';
import { createSubscriber, type Redis, type RedisTarget } from './redis.js';

/** Something every web process must forget at once. */
export type Invalidation =
  | { type: 'catalog' }
  | { type: 'key'; keyId: string; hash: string }
  | { type: 'account'; accountId: string }
  /** A process is near a limit of the account: every process hands back the unused room it holds for it. */
  | { type: 'slices'; accountId: string };

/** What a subscriber does with an event; a promise it returns is awaited by a local publish. */
export type InvalidationHandler = (event: Invalidation) => void | Promise<void>;

/**
 * Cross-process cache invalidation over Redis pub/sub (sharded on a cluster). `publish`
 * applies the event to this process's own handlers before it returns: the echo from Redis
 * comes on another connection and may arrive after the publisher's next request, which
 * must already see the change (an operator who lifts a limit and retries at once).
 */
export interface InvalidationBus {
  publish(event: Invalidation): Promise<void>;
  subscribe(handler: InvalidationHandler): void;
  close(): Promise<void>;
}

function parse(message: string): Invalidation | null {
  try {
    const value: unknown = JSON.parse(message);
    if (typeof value === 'object' && value !== null && 'type' in value) return value as Invalidation;
  } catch {
    // A malformed message is ignored: caches also expire on their own.
  }
  return null;
}

/** Runs every handler on an event; one that fails does not keep the others from it. */
function applyAll(handlers: readonly InvalidationHandler[], event: Invalidation): Promise<unknown> {
  return Promise.allSettled(handlers.map(async (h) => h(event)));
}

/**
 * Creates the bus. Subscribing needs a dedicated connection; publishing uses the shared one.
 * Messages can be lost while Redis is down, which is why every cache also has a short TTL.
 */
export function createInvalidationBus(publisher: Redis, target: RedisTarget, prefix: string, log: Logger): InvalidationBus {
  const channel = `${prefix}:invalidate`;
  const handlers: InvalidationHandler[] = [];
  let subscriber: Redis | null = null;

  return {
    async publish(event) {
      await applyAll(handlers, event);
      await publishMessage(publisher, channel, JSON.stringify(event));
    },
    subscribe(handler) {
      handlers.push(handler);
      if (subscriber) return;
      subscriber = createSubscriber(target, 'invalidation');
      subscriber.on('error', (err) => log.debug({ err }, 'invalidation subscriber error'));
      const deliver = (message: string) => {
        const event = parse(message);
        if (event) void applyAll(handlers, event);
      };
      void listenOn(subscriber, channel, deliver).catch((err: unknown) => log.warn({ err }, 'invalidation subscribe failed'));
    },
    async close() {
      subscriber?.disconnect();
    },
  };
}
