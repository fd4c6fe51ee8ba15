import type { Redis } from 'ioredis';

/** A binary input to store beside a job. */
export interface PayloadInput {
  name: string;
  data: Buffer;
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

  /** Stores a job's output as JSON; it expires after `ttlMs` if nobody collects it. */
  async putResult(requestId: string, result: unknown, ttlMs: number): Promise<void> {
    await this.redis.set(this.key(requestId, 'out'), JSON.stringify(result), 'PX', ttlMs);
  }

  /** The stored output as parsed JSON, or undefined when there is none (yet). */
  async getResult(requestId: string): Promise<unknown> {
    const text = await this.redis.get(this.key(requestId, 'out'));
    return text === null ? undefined : (JSON.parse(text) as unknown);
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
