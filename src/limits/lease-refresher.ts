import type { Logger } from 'pino';
import type { Clock } from '../billing/periods.js';
import type { Redis } from '../redis/redis.js';

/** Redis entries (ZSET members) that stay alive only while their request runs. */
export interface Lease {
  /** ZSET → how long one refresh extends the member, ms. */
  readonly members: ReadonlyArray<{ readonly zset: string; readonly ttlMs: number }>;
  readonly requestId: string;
  /** Keys holding the members' bookkeeping, kept from expiring as long as the members. */
  readonly touch: ReadonlyArray<{ readonly key: string; readonly ttlMs: number }>;
}

/**
 * Keeps the holds and stream slots of live requests from expiring. A crashed process stops
 * refreshing, so its holds and slots lapse after their TTL (crash safety), while a long
 * stream in a healthy process keeps them. One timer per process, one pipeline per tick.
 */
export class LeaseRefresher {
  private readonly leases = new Map<string, Lease>();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly redis: Redis,
    private readonly clock: Clock,
    private readonly log: Logger,
    intervalMs: number,
  ) {
    this.timer = setInterval(() => void this.refresh(), intervalMs);
    this.timer.unref();
  }

  /** Starts refreshing a request's entries. */
  track(lease: Lease): void {
    if (lease.members.length > 0) this.leases.set(lease.requestId, lease);
  }

  /** Stops refreshing a request's entries. */
  untrack(requestId: string): void {
    this.leases.delete(requestId);
  }

  /** Stops the timer. */
  stop(): void {
    clearInterval(this.timer);
  }

  private async refresh(): Promise<void> {
    if (this.leases.size === 0) return;
    const now = this.clock().getTime();
    const pipeline = this.redis.pipeline();
    for (const lease of this.leases.values()) {
      // XX: never resurrect an entry that was freed or lost (FLUSHALL); it stays gone.
      for (const m of lease.members) pipeline.zadd(m.zset, 'XX', now + m.ttlMs, lease.requestId);
      for (const t of lease.touch) pipeline.pexpire(t.key, t.ttlMs);
    }
    try {
      await pipeline.exec();
    } catch (err) {
      this.log.warn({ err }, 'refreshing admission leases failed; will retry');
    }
  }
}
