/** The BullMQ queues of the gateway; web processes produce, worker processes consume. */
export const QUEUE_NAMES = ['images', 'ocr'] as const;

/** One of the gateway's queues. */
export type QueueName = (typeof QUEUE_NAMES)[number];

/**
 * The BullMQ prefix of a queue: the Redis prefix with the queue's name as a hash tag, so that
 * every key of one queue lives in one Redis Cluster slot (BullMQ's scripts touch many of them
 * at once) while different queues spread over the cluster.
 */
export function queuePrefix(redisPrefix: string, queue: QueueName): string {
  return `${redisPrefix}:{${queue}}`;
}
