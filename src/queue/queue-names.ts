/** The BullMQ queues of the gateway; web processes produce, worker processes consume. */
export const QUEUE_NAMES = ['images', 'ocr'] as const;

/** One of the gateway's queues. */
export type QueueName = (typeof QUEUE_NAMES)[number];
