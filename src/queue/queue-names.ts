/** The BullMQ queues of the gateway; web processes produce, worker processes consume. */
export const QUEUE_NAMES = ['images', 'ocr'] as const;

/** The queue of webhook deliveries (its own: a slow receiver never delays an image job). */
export const WEBHOOK_QUEUE = 'webhooks';

/** One of the gateway's job queues (the ones a request waits for). */
export type QueueName = (typeof QUEUE_NAMES)[number];

/**
 * The BullMQ prefix of a queue: the Redis prefix with the queue's name as a hash tag, so that
 * every key of one queue lives in one Redis Cluster slot (BullMQ's scripts touch many of them
 * at once) while different queues spread over the cluster.
 */
export function queuePrefix(redisPrefix: string, queue: QueueName | typeof WEBHOOK_QUEUE): string {
  return `${redisPrefix}:{${queue}}`;
}
