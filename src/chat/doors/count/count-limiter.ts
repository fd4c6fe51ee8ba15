import type { Clock } from '../../../billing/index.js';
import { GatewayError } from '../../../platform/errors/index.js';
import type { Redis } from '../../../platform/redis/index.js';

const WINDOW_MS = 60_000;

/**
 * Token counts are never charged, so a key could use them to flood an upstream's counting
 * endpoint: each key gets a budget of counts per calendar minute of its own, apart from its
 * RPM (a count never uses up a request the key could make).
 */
export class CountLimiter {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly perMinute: number,
    private readonly clock: Clock,
  ) {}

  /** Counts one token count for the key; 429 `rate_limited` with `Retry-After` over the budget. */
  async check(keyId: string): Promise<void> {
    const now = this.clock().getTime();
    const window = Math.floor(now / WINDOW_MS);
    const key = `${this.prefix}:count-tokens:{${keyId}}:${window}`;
    const [[, used]] = (await this.redis.multi().incr(key).pexpire(key, WINDOW_MS * 2).exec()) as [[unknown, number], unknown];
    if (used <= this.perMinute) return;
    const seconds = Math.max(1, Math.ceil(((window + 1) * WINDOW_MS - now) / 1000));
    throw new GatewayError('rate_limited', `Rate limit reached: this key's limit of ${this.perMinute} token counts per minute. Retry after ${seconds} s.`, { retryAfterSeconds: seconds });
  }
}
