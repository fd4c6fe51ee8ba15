import { hostname } from 'node:os';
import { Worker } from 'bullmq';
import type { Logger } from 'pino';
import type { Config } from '../src/platform/config/index.js';
import type { Mongo } from '../src/platform/db/index.js';
import { systemClock } from '../src/billing/index.js';
import { accountCollections, keyCollections } from '../src/accounts/index.js';
import { closeConnection, queuePrefix, WEBHOOK_QUEUE, workerConnection } from '../src/queue/index.js';
import { endpointGuard, ExpirySweeper, webhookCollections, Webhooks, type WebhookJobData } from '../src/webhooks/index.js';
import { webhookProcessor } from './processors/webhook-processor.js';

/** The `webhooks` worker of a process and the key expiry sweep beside it. */
export interface RunningWebhookWorker {
  /** Stops taking deliveries and sweeping; waits for running ones. */
  finish(): Promise<void>;
  disconnect(): Promise<void>;
}

/**
 * Starts the delivery worker (`WEBHOOK_CONCURRENCY` at once; BullMQ's exponential backoff
 * between tries) and the `key.expired` sweep, which emits through the same queue.
 */
export async function startWebhookWorker(config: Config, mongo: Mongo, log: Logger): Promise<RunningWebhookWorker> {
  const c = { ...webhookCollections(mongo.db), ...keyCollections(mongo.db), ...accountCollections(mongo.db) };
  const producer = workerConnection(config.redis, 'farebox-webhook-producer');
  const consumer = workerConnection(config.redis, 'farebox-worker-webhooks');
  for (const redis of [producer, consumer]) redis.on('error', (err) => log.debug({ err }, 'webhook worker redis error'));
  const webhooks = new Webhooks({ c, redis: producer, redisPrefix: config.redisPrefix, settings: config.webhooks, clock: systemClock, log });
  const processor = webhookProcessor({ c, deliveries: webhooks.deliveries, settings: config.webhooks, guard: endpointGuard({ allowLoopback: config.webhooks.allowLoopback }), log });
  const worker = new Worker<WebhookJobData>(WEBHOOK_QUEUE, processor, {
    connection: consumer,
    prefix: queuePrefix(config.redisPrefix, WEBHOOK_QUEUE),
    concurrency: config.webhooks.concurrency,
    name: `${hostname()}:${process.pid}`,
  });
  worker.on('error', (err) => log.warn({ err, queue: WEBHOOK_QUEUE }, 'worker error'));
  await worker.waitUntilReady();
  const sweeper = new ExpirySweeper(c, webhooks.emitter, systemClock, log);
  sweeper.start(config.webhooks.sweepMs);
  return {
    async finish() {
      await Promise.all([worker.close(), sweeper.stop()]);
      await webhooks.close();
    },
    async disconnect() {
      await Promise.all([closeConnection(producer), closeConnection(consumer)]);
    },
  };
}
