import { Queue, type JobsOptions } from 'bullmq';
import type { Logger } from 'pino';
import type { WebhookSettings } from '../platform/config/index.js';
import { queuePrefix, WEBHOOK_QUEUE } from '../queue/index.js';
import type { Redis } from '../platform/redis/index.js';
import { traceCarrier } from '../platform/tracing/index.js';
import type { WebhookJobData } from './webhook-types.js';

/** The retry policy of a delivery: exponential backoff over about a day, then failed. */
export function deliveryJobOptions(settings: Pick<WebhookSettings, 'maxAttempts' | 'retryBaseMs'>): JobsOptions {
  return {
    attempts: settings.maxAttempts,
    backoff: { type: 'exponential', delay: settings.retryBaseMs },
    removeOnComplete: { age: 3_600, count: 1_000 },
    removeOnFail: { age: 7 * 24 * 3_600, count: 10_000 },
  };
}

/** Producer side of the `webhooks` queue: one job per delivery, its id the delivery's id. */
export class WebhookQueue {
  private readonly queue: Queue<WebhookJobData>;

  constructor(connection: Redis, redisPrefix: string, settings: WebhookSettings, log: Logger) {
    this.queue = new Queue<WebhookJobData>(WEBHOOK_QUEUE, {
      connection,
      prefix: queuePrefix(redisPrefix, WEBHOOK_QUEUE),
      defaultJobOptions: deliveryJobOptions(settings),
      skipWaitingForReady: true,
    });
    this.queue.on('error', (err) => log.debug({ err }, 'webhook queue error'));
  }

  /**
   * Enqueues a delivery. The job id makes it idempotent: the same delivery enqueued twice
   * (two processes seeing one crossing) runs once. A replay passes its own suffix. The job
   * carries the trace context it was queued in, so the delivery's span can link back to it.
   */
  async add(data: WebhookJobData, replay?: number): Promise<void> {
    const jobId = replay === undefined ? data.delivery_id : `${data.delivery_id}.r${replay}`;
    const trace = data.trace ?? traceCarrier();
    await this.queue.add(data.type, trace === undefined ? data : { ...data, trace }, { jobId });
  }

  /** The BullMQ queue (inspection in tools and tests). */
  get raw(): Queue<WebhookJobData> {
    return this.queue;
  }

  /** Closes the queue (not the shared connection). */
  async close(): Promise<void> {
    await this.queue.close();
  }
}
