import { publishMessage, type Redis } from '../platform/redis/index.js';
import { decodeReply, decodeReplyBytes, encodeReply, type JobReply, serializeResult } from './job-reply.js';

/** A binary input to store beside a job. */
export interface PayloadInput {
  name: string;
  data: Buffer;
}

/**
 * Results up to this size travel inside the published reply; larger ones are read from the
 * stored copy, so a burst of big images cannot overrun Redis's pub/sub output buffers.
 */
export const INLINE_REPLY_BYTES = 256 * 1024;

/** Where a finished job is stored and who is told. */
export interface ResultAddress {
  head: Omit<JobReply, 'result'>;
  /** The waiting web's reply channel, when the job names one. */
  replyTo?: string | undefined;
}

/**
 * Large job payloads in plain Redis keys with a TTL, referenced from the job by request id:
 * inputs (uploads, documents) under `<prefix>:payload:{<id>}:in:<name>`, the output under
 * `<prefix>:payload:{<id>}:out`, and a cancellation mark under `<prefix>:payload:{<id>}:cancel`.
 * The request id is a hash tag, so one request's keys share a Redis Cluster slot and its
 * transactions, pipelines and multi-key DEL stay valid on a cluster.
 * BullMQ copies job return values into its event stream (kept to ~10,000 entries), so a
 * multi-megabyte result must not be a return value; and keeping inputs out of the job hash
 * lets the web drop them the moment the request ends. TTLs bound what a crashed process
 * leaves behind.
 */
export class PayloadStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  private key(requestId: string, suffix: string): string {
    return `${this.prefix}:payload:{${requestId}}:${suffix}`;
  }

  /** Stores inputs; they expire after `ttlMs`. */
  async putInputs(requestId: string, inputs: readonly PayloadInput[], ttlMs: number): Promise<void> {
    if (inputs.length === 0) return;
    const pipeline = this.redis.multi();
    for (const input of inputs) pipeline.set(this.key(requestId, `in:${input.name}`), input.data, 'PX', ttlMs);
    const replies = await pipeline.exec();
    const failed = replies?.find(([err]) => err !== null);
    if (failed?.[0]) throw failed[0];
  }

  /** One input, or null when it expired or the request was cancelled. */
  getInput(requestId: string, name: string): Promise<Buffer | null> {
    return this.redis.getBuffer(this.key(requestId, `in:${name}`));
  }

  /**
   * Stores a job's output (it expires after `ttlMs` if nobody collects it) and publishes it to
   * the waiting web, in one round trip, unless the web has cancelled the request: then the
   * output is dropped again and the result is false. A plain pipeline rather than a script:
   * Lua copies its arguments, which costs more than the check saves for a multi-megabyte
   * image, and a reply for a cancelled request finds nobody waiting for it. The publish goes
   * beside the pipeline, not in it: the reply channel lives in another cluster slot.
   */
  async putResult(address: ResultAddress, result: unknown, ttlMs: number): Promise<boolean> {
    const text = serializeResult(result);
    const stored = encodeReply(address.head, text);
    const out = this.key(address.head.id, 'out');
    const pipeline = this.redis.pipeline().exists(this.key(address.head.id, 'cancel')).set(out, stored, 'PX', Math.max(1, Math.round(ttlMs)));
    const inline = text.length <= INLINE_REPLY_BYTES;
    const replyTo = address.replyTo;
    // An inline reply needs nothing stored; a reference must not arrive before the stored copy.
    const published = replyTo !== undefined && inline ? publishMessage(this.redis, replyTo, stored) : Promise.resolve();
    const [replies] = await Promise.all([pipeline.exec(), published]);
    const failed = replies?.find(([err]) => err !== null);
    if (failed?.[0]) throw failed[0];
    if (replyTo !== undefined && !inline) await publishMessage(this.redis, replyTo, encodeReply(address.head, undefined));
    if (replies?.[0]?.[1] !== 1) return true;
    await this.redis.del(out);
    return false;
  }

  /** Tells the waiting web that its job failed for good (nothing is stored: BullMQ keeps the failed job). */
  async publishFailure(address: ResultAddress, failedReason: string): Promise<void> {
    if (address.replyTo === undefined) return;
    await publishMessage(this.redis, address.replyTo, encodeReply({ ...address.head, failedReason }, undefined));
  }

  /**
   * The stored reply (output and timing), or undefined when there is none (yet). With `bytes`,
   * its detached strings (megabytes of base64) stay bytes, never decoded into strings.
   */
  async getReply(requestId: string, bytes = false): Promise<JobReply | undefined> {
    const key = this.key(requestId, 'out');
    if (bytes) {
      const stored = await this.redis.getBuffer(key);
      return stored === null ? undefined : decodeReplyBytes(stored);
    }
    const text = await this.redis.get(key);
    return text === null ? undefined : decodeReply(text);
  }

  /** The stored output as parsed JSON, or undefined when there is none (yet). */
  async getResult(requestId: string): Promise<unknown> {
    return (await this.getReply(requestId))?.result;
  }

  /** The pub/sub channel a web process hears its jobs' replies on. */
  replyChannel(instanceId: string): string {
    return `${this.prefix}:jobs:reply:${instanceId}`;
  }

  /** Marks a request as abandoned, so a worker stops or skips its job. */
  async markCancelled(requestId: string, ttlMs: number): Promise<void> {
    await this.redis.set(this.key(requestId, 'cancel'), '1', 'PX', ttlMs);
  }

  /** Whether the web gave up on this request. */
  async isCancelled(requestId: string): Promise<boolean> {
    return (await this.redis.exists(this.key(requestId, 'cancel'))) === 1;
  }

  /** Drops a request's inputs and output (after delivery or cancellation). */
  async clear(requestId: string, inputNames: readonly string[]): Promise<void> {
    const keys = [this.key(requestId, 'out'), ...inputNames.map((name) => this.key(requestId, `in:${name}`))];
    await this.redis.del(...keys);
  }
}
