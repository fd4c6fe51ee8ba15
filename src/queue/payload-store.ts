import type { Redis } from 'ioredis';
import { LuaScript } from '../limits/lua-script.js';
import { decodeReply, encodeReply, type JobReply } from './job-reply.js';

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

/**
 * Stores a result unless the request was cancelled, and tells the waiting web, in one round
 * trip. KEYS: output, cancel mark. ARGV: stored reply, TTL ms, reply channel ('' for none),
 * published reply. Returns 1 when stored, 0 when the request was cancelled.
 */
const STORE_RESULT = new LuaScript(`
if redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
if ARGV[3] ~= '' then redis.call('PUBLISH', ARGV[3], ARGV[4]) end
return 1
`);

/** Where a finished job is stored and who is told. */
export interface ResultAddress {
  head: Omit<JobReply, 'result'>;
  /** The waiting web's reply channel, when the job names one. */
  replyTo?: string | undefined;
}

/**
 * Large job payloads in plain Redis keys with a TTL, referenced from the job by request id:
 * inputs (uploads, documents) under `<prefix>:payload:<id>:in:<name>`, the output under
 * `<prefix>:payload:<id>:out`, and a cancellation mark under `<prefix>:payload:<id>:cancel`.
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
    return `${this.prefix}:payload:${requestId}:${suffix}`;
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
   * the waiting web, unless the web has cancelled the request. False when cancelled.
   */
  async putResult(address: ResultAddress, result: unknown, ttlMs: number): Promise<boolean> {
    const resultJson = JSON.stringify(result);
    const stored = encodeReply(address.head, resultJson);
    const published = resultJson.length <= INLINE_REPLY_BYTES ? stored : encodeReply(address.head, undefined);
    const keys = [this.key(address.head.id, 'out'), this.key(address.head.id, 'cancel')];
    const done = await STORE_RESULT.run(this.redis, keys, [stored, Math.max(1, Math.round(ttlMs)), address.replyTo ?? '', published]);
    return done === 1;
  }

  /** The stored reply (output and timing), or undefined when there is none (yet). */
  async getReply(requestId: string): Promise<JobReply | undefined> {
    const text = await this.redis.get(this.key(requestId, 'out'));
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
