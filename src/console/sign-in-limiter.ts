import type { Redis } from '../platform/redis/index.js';
import { GatewayError } from '../platform/errors/index.js';

/** Failed sign-ins allowed per client address per window. */
export const SIGN_IN_FAILURES = 10;
const WINDOW_SECONDS = 60;

/**
 * Slows down guessing at the console's sign-in: after {@link SIGN_IN_FAILURES} failed attempts
 * from one address within a minute, further attempts get 429 until the window ends.
 */
export class SignInLimiter {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  /** Throws 429 `rate_limited` when the address used up its failures. */
  async check(address: string): Promise<void> {
    const failures = Number((await this.redis.get(this.key(address))) ?? 0);
    if (failures >= SIGN_IN_FAILURES) {
      throw new GatewayError('rate_limited', 'Too many failed sign-ins; wait a minute.', { retryAfterSeconds: WINDOW_SECONDS });
    }
  }

  /** Counts a failed attempt. */
  async fail(address: string): Promise<void> {
    const key = this.key(address);
    const count = await this.redis.incr(key);
    if (count === 1) await this.redis.expire(key, WINDOW_SECONDS);
  }

  private key(address: string): string {
    return `${this.prefix}:console:sign-in-failures:${address}`;
  }
}
