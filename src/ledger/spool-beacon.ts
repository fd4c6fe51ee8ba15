import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { Redis } from '../platform/redis/index.js';

/** How long a process's "charges pending" mark lasts without renewal. */
const MARK_TTL_MS = 3_000;

/**
 * Tells every web process that some process holds spooled charges not yet in MongoDB. While
 * any are pending, MongoDB's balances and spend lack them, so no process may rebuild mirrors
 * from it or admit paid work. One ZSET member per process with an expiry score, so a crashed
 * process's mark lapses (its spool is adopted and drained by the next process to start).
 */
export class SpoolBeacon {
  private readonly member = `${process.pid}-${randomBytes(4).toString('hex')}`;
  private othersPending = false;
  /** Whether this process's mark may be in the set (added, or its removal not confirmed). */
  private marked = false;

  constructor(
    private readonly redis: Redis,
    private readonly key: string,
    private readonly log: Logger,
  ) {}

  /** Whether another process announced pending charges at the last exchange. */
  get pendingElsewhere(): boolean {
    return this.othersPending;
  }

  /**
   * Publishes this process's state and reads the others'. With nothing spooled here and no mark
   * to take back, the usual case, that is one read of the live marks; lapsed marks are skipped
   * by score and swept by the next process that writes. Redis trouble keeps the last view.
   */
  async exchange(pendingHere: boolean, now: number): Promise<void> {
    try {
      let members: unknown;
      if (pendingHere || this.marked) {
        const pipeline = this.redis.pipeline();
        if (pendingHere) pipeline.zadd(this.key, now + MARK_TTL_MS, this.member);
        else pipeline.zrem(this.key, this.member);
        pipeline.zremrangebyscore(this.key, '-inf', now);
        pipeline.zrangebyscore(this.key, `(${now}`, '+inf');
        const results = await pipeline.exec();
        const failed = results?.some(([err]) => err !== null) ?? true;
        if (!failed) this.marked = pendingHere;
        members = results?.[2]?.[1];
      } else {
        members = await this.redis.zrangebyscore(this.key, `(${now}`, '+inf');
      }
      this.othersPending = Array.isArray(members) && members.some((m) => m !== this.member);
    } catch (err) {
      this.log.debug({ err }, 'spool beacon exchange failed');
    }
  }
}
