import { dayPeriod, monthPeriod } from '../billing/periods.js';

/**
 * Redis key names of admission state. Everything about one account shares the hash tag
 * `{acct_…}`, so each admission script touches a single cluster slot. Names carry the Redis
 * generation (see RedisEpoch): after Redis lost or rewound data a new generation starts, so
 * stale mirrors and holds from a snapshot are never read again.
 */
export class AdmissionKeys {
  /** Current generation; set by RedisEpoch once verified against the server. */
  generation = '0';

  constructor(private readonly prefix: string) {}

  /** The epoch record: HASH gen, run_id (one per deployment, outside any account slot). */
  epoch(): string {
    return `${this.prefix}:adm:epoch`;
  }

  private scope(accountId: string): string {
    return `${this.prefix}:adm:${this.generation}:{${accountId}}`;
  }

  /** Balance mirror of an account, nano-USD. */
  balance(accountId: string): string {
    return `${this.scope(accountId)}:bal`;
  }

  /** In-flight holds: ZSET request id → expiry (ms). */
  holds(accountId: string): string {
    return `${this.scope(accountId)}:holds`;
  }

  /** Hold details: HASH request id → `amount:keyId`. */
  holdInfo(accountId: string): string {
    return `${this.scope(accountId)}:holdinfo`;
  }

  /** Sum of the account's in-flight holds. */
  heldTotal(accountId: string): string {
    return `${this.scope(accountId)}:held`;
  }

  /** Held amounts per key: HASH keyId → nano-USD. */
  keyHeld(accountId: string): string {
    return `${this.scope(accountId)}:kheld`;
  }

  /** Lifetime spend mirror of a key. */
  spendLifetime(accountId: string, keyId: string): string {
    return `${this.scope(accountId)}:spend:${keyId}:life`;
  }

  /** Spend mirror of a key for the UTC day of `at`. */
  spendDay(accountId: string, keyId: string, at: Date): string {
    return `${this.scope(accountId)}:spend:${keyId}:${dayPeriod(at)}`;
  }

  /** Spend mirror of a key for the UTC month of `at`. */
  spendMonth(accountId: string, keyId: string, at: Date): string {
    return `${this.scope(accountId)}:spend:${keyId}:${monthPeriod(at)}`;
  }

  /** Stream slot leases of a key: ZSET request id → lease expiry (ms). */
  streams(accountId: string, keyId: string): string {
    return `${this.scope(accountId)}:streams:${keyId}`;
  }

  /** Marks a request whose charge has been applied to the mirrors (idempotency). */
  applied(accountId: string, requestId: string): string {
    return `${this.scope(accountId)}:applied:${requestId}`;
  }

  /** Sliding request log of a key (RPM). */
  keyRequests(accountId: string, keyId: string): string {
    return `${this.scope(accountId)}:rpm:${keyId}`;
  }

  /** Sliding request log of a free-tier account. */
  accountRequests(accountId: string): string {
    return `${this.scope(accountId)}:rpm`;
  }

  /** Requests of a free-tier account during the UTC day of `at`. */
  accountDay(accountId: string, at: Date): string {
    return `${this.scope(accountId)}:rpd:${dayPeriod(at)}`;
  }

  /**
   * Charges settled while `mirror` was missing: HASH request id → `delta:chargedAtMs`. The
   * next rebuild adds the ones its MongoDB snapshot did not contain yet.
   */
  unapplied(mirror: string): string {
    return `${mirror}:unapplied`;
  }

  /** Request ids a rebuilt `mirror` already counts (its MongoDB snapshot held them): SET. */
  baked(mirror: string): string {
    return `${mirror}:baked`;
  }

  /** Bumped when `mirror` is invalidated, so a rebuild that read MongoDB before is not stored. */
  mirrorVersion(mirror: string): string {
    return `${mirror}:ver`;
  }

  /** Throttles forced balance re-syncs after a refusal. */
  balanceResync(accountId: string): string {
    return `${this.scope(accountId)}:balsync`;
  }
}
