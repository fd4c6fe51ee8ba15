import type { QueueName } from './queue-names.js';

/** When a job was queued, taken by a worker and finished (epoch ms, from the worker's clock and BullMQ's). */
export interface JobTiming {
  queuedAt: number;
  startedAt: number;
  finishedAt: number;
}

/**
 * What a worker leaves for the web when a job ends. A success is stored under the request id
 * (the backstop) and published on the waiting web's reply channel (the fast path); the result
 * is left out of the published copy when it is large, and the web then reads the stored one.
 * A final failure is only published, with BullMQ's failure reason; the job's failed state is
 * the backstop.
 */
export interface JobReply {
  queue: QueueName;
  id: string;
  timing?: JobTiming;
  /** The job's output; absent in a published reply that was too large to carry it. */
  result?: unknown;
  /** Set when the job failed for good: the failure reason BullMQ records (see job-error). */
  failedReason?: string;
}

/**
 * Serialises a reply around an already serialised result, so a multi-megabyte output is
 * stringified once and both copies share that text.
 */
export function encodeReply(head: Omit<JobReply, 'result'>, resultJson: string | undefined): string {
  const prefix = JSON.stringify(head);
  if (resultJson === undefined) return prefix;
  // `prefix` ends with `}`: splice the result in as the last member.
  return `${prefix.slice(0, -1)}${prefix.length > 2 ? ',' : ''}"result":${resultJson}}`;
}

/** Parses a stored or published reply; undefined when the text is not one. */
export function decodeReply(text: string): JobReply | undefined {
  try {
    const parsed = JSON.parse(text) as Partial<JobReply> | null;
    if (parsed === null || typeof parsed !== 'object' || typeof parsed.id !== 'string' || typeof parsed.queue !== 'string') return undefined;
    return parsed as JobReply;
  } catch {
    return undefined;
  }
}
