import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../../src/platform/config/index.js';
import { createLogger } from '../../../../src/platform/log/index.js';
import { createInvalidationBus, type Invalidation } from '../../../../src/platform/redis/invalidation-bus.js';
import { createRedis, waitReady, type Redis } from '../../../../src/platform/redis/redis.js';
import { testEnv } from '../../../helpers/test-gateway.js';
import { uniqueName } from '../../../setup/test-context.js';

const target = loadConfig(testEnv()).redis;
let redis: Redis;

beforeAll(async () => {
  redis = createRedis(target, 'bus-test');
  await waitReady(redis);
});
afterAll(() => redis?.disconnect());

describe('invalidation bus', () => {
  it("has applied an event to the publisher's own handlers, and awaited them, when publish returns", async () => {
    const bus = createInvalidationBus(redis, target, uniqueName('bus'), createLogger('silent'));
    try {
      const applied: Invalidation[] = [];
      bus.subscribe(async (event) => {
        // A handler that finishes later than the publish round trip, like a Redis delete.
        await new Promise((r) => setTimeout(r, 50));
        applied.push(event);
      });
      await bus.publish({ type: 'account', accountId: 'acct_1' });
      expect(applied).toEqual([{ type: 'account', accountId: 'acct_1' }]);
    } finally {
      await bus.close();
    }
  });

  it('publishes even when a local handler fails', async () => {
    const channel = uniqueName('bus');
    const publisher = createInvalidationBus(redis, target, channel, createLogger('silent'));
    const listener = createInvalidationBus(redis, target, channel, createLogger('silent'));
    try {
      publisher.subscribe(() => {
        throw new Error('handler broke');
      });
      const received = new Promise<Invalidation>((resolve) => listener.subscribe(resolve));
      let event: Invalidation | undefined;
      for (let i = 0; i < 50 && !event; i += 1) {
        await publisher.publish({ type: 'catalog' });
        event = await Promise.race([received, new Promise<undefined>((r) => setTimeout(() => r(undefined), 100))]);
      }
      expect(event).toEqual({ type: 'catalog' });
    } finally {
      await Promise.all([publisher.close(), listener.close()]);
    }
  });
});
