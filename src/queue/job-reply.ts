import { attachStrings, detachStrings, type DetachedPath } from './detached-strings.js';
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

/** A job result serialised once for both the stored and the published reply. */
export interface ResultText {
  /** JSON of the result with `""` in place of each detached string. */
  json: string;
  paths: DetachedPath[];
  strings: string[];
  /** Characters of the JSON and the detached strings together. */
  length: number;
}

/** Serialises a result, its long base64 strings (images) detached (see detached-strings). */
export function serializeResult(result: unknown): ResultText {
  const { value, paths, strings } = detachStrings(result);
  const json = JSON.stringify(value);
  return { json, paths, strings, length: strings.reduce((sum, text) => sum + text.length, json.length) };
}

/**
 * Serialises a reply around an already serialised result, so a multi-megabyte output is
 * serialised once and both copies share that text. Detached strings follow the JSON, one per
 * line, and the JSON lists where they go (`detached`); JSON.stringify never writes a newline.
 */
export function encodeReply(head: Omit<JobReply, 'result'>, result: ResultText | undefined): string {
  const prefix = JSON.stringify(head);
  if (result === undefined) return prefix;
  const detached = result.paths.length === 0 ? '' : `,"detached":${JSON.stringify(result.paths)}`;
  // `prefix` ends with `}`: splice the result in as the last member.
  const json = `${prefix.slice(0, -1)}${prefix.length > 2 ? ',' : ''}"result":${result.json}${detached}}`;
  return result.strings.length === 0 ? json : `${json}\n${result.strings.join('\n')}`;
}

const NEWLINE = 0x0a;

/** Parses a stored or published reply; undefined when the text is not one. */
export function decodeReply(text: string): JobReply | undefined {
  const end = text.indexOf('\n');
  // Slices of the text: the detached strings are not copied again.
  return end < 0 ? replyOf(text, undefined) : replyOf(text.slice(0, end), text.slice(end + 1).split('\n'));
}

/**
 * Parses a stored reply read as bytes; its detached strings stay bytes (views of `bytes`, not
 * copies), for a reader that writes them out as they are (images).
 */
export function decodeReplyBytes(bytes: Buffer): JobReply | undefined {
  const end = bytes.indexOf(NEWLINE);
  if (end < 0) return replyOf(bytes.toString('utf8'), undefined);
  const strings: Buffer[] = [];
  for (let from = end + 1; ; ) {
    const next = bytes.indexOf(NEWLINE, from);
    strings.push(bytes.subarray(from, next < 0 ? bytes.length : next));
    if (next < 0) break;
    from = next + 1;
  }
  return replyOf(bytes.toString('utf8', 0, end), strings);
}

/** The reply in a JSON line, with the detached strings that followed it put back. */
function replyOf(json: string, strings: ReadonlyArray<string | Buffer> | undefined): JobReply | undefined {
  try {
    const parsed = JSON.parse(json) as (Partial<JobReply> & { detached?: DetachedPath[] }) | null;
    if (parsed === null || typeof parsed !== 'object' || typeof parsed.id !== 'string' || typeof parsed.queue !== 'string') return undefined;
    const { detached, ...reply } = parsed;
    if (detached === undefined) return strings === undefined ? (reply as JobReply) : undefined;
    return Array.isArray(detached) && attachStrings(reply.result, detached, strings ?? []) ? (reply as JobReply) : undefined;
  } catch {
    return undefined;
  }
}
