import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { Redis } from '../platform/redis/index.js';

/** How long a process's published state counts without renewal (a crashed process's lapses). */
const MARK_TTL_MS = 3_000;

/** What one process last said of its spool. */
interface SpoolState {
  /** When it said it (ms). */
  readonly asOf: number;
  /** When its oldest charge not yet in MongoDB was spooled (ms), if it has any. */
  readonly oldest: number | undefined;
}

function parseState(text: string): SpoolState | undefined {
  const [asOf, oldest] = text.split(':');
  const at = Number(asOf);
  if (!Number.isFinite(at)) return undefined;
  return { asOf: at, oldest: oldest === undefined || oldest === '' ? undefined : Number(oldest) };
}

/**
 * Tells every web process which processes hold spooled charges not yet in MongoDB, and since
 * when. While a charge is only spooled, MongoDB's balances and spend lack it, so a mirror must
 * not be rebuilt from MongoDB before it is drained. One hash field per process, `asOf:oldest`;
 * a field older than its lapse time belongs to a process that stopped (its spool is adopted and
 * drained by a live one) and is swept by the next process that writes.
 */
export class SpoolBeacon {
  private readonly member = `${process.pid}-${randomBytes(4).toString('hex')}`;
  private others: SpoolState[] = [];
  /** Whether this process's field may be in the hash (written, or its removal not confirmed). */
  private marked = false;

  constructor(
    private readonly redis: Redis,
    private readonly key: string,
    private readonly log: Logger,
  ) {}

  /** Whether another live process announced charges not yet in MongoDB at the last exchange. */
  get pendingElsewhere(): boolean {
    return this.others.some((s) => s.oldest !== undefined);
  }

  /** Whether another live process holds a charge spooled before `at` (ms) that is not in MongoDB yet. */
  pendingElsewhereSince(at: number): boolean {
    return this.others.some((s) => s.oldest !== undefined && s.oldest <= at);
  }

  /** Whether every other live process has published its state at or after `at` (ms). */
  heardFromAllSince(at: number): boolean {
    return this.others.every((s) => s.asOf >= at);
  }

  /**
   * Publishes this process's state and reads the others'. With `publish` false, nothing
   * spooled here and no field to take back (the usual case of a gateway that acknowledges
   * commits), that is one read. Redis trouble keeps the last view.
   *
   * @param oldest when this process's oldest charge not yet in MongoDB was spooled, if any.
   * @param publish write this process's state even when it has nothing spooled (a spool that
   *   drains continuously: others wait to hear from it before rebuilding mirrors).
   */
  async exchange(oldest: number | undefined, now: number, publish = false): Promise<void> {
    try {
      const write = publish || oldest !== undefined;
      let fields: unknown;
      if (write || this.marked) {
        const pipeline = this.redis.pipeline();
        if (write) pipeline.hset(this.key, this.member, `${now}:${oldest ?? ''}`);
        else pipeline.hdel(this.key, this.member);
        pipeline.hgetall(this.key);
        const results = await pipeline.exec();
        const failed = results?.some(([err]) => err !== null) ?? true;
        if (!failed) this.marked = write;
        fields = results?.[1]?.[1];
      } else {
        fields = await this.redis.hgetall(this.key);
      }
      this.others = this.read(fields, now);
    } catch (err) {
      this.log.debug({ err }, 'spool beacon exchange failed');
    }
  }

  /** The live states of other processes; lapsed fields are deleted (best effort). */
  private read(fields: unknown, now: number): SpoolState[] {
    const states: SpoolState[] = [];
    const lapsed: string[] = [];
    for (const [member, text] of Object.entries((fields ?? {}) as Record<string, string>)) {
      if (member === this.member) continue;
      const state = parseState(text);
      if (state && state.asOf > now - MARK_TTL_MS) states.push(state);
      else lapsed.push(member);
    }
    if (lapsed.length > 0) this.redis.hdel(this.key, ...lapsed).catch(() => undefined);
    return states;
  }
}
