import { dayPeriod, monthPeriod, weekPeriod } from '../billing/index.js';
import { keySlot } from '../platform/redis/index.js';

/**
 * Redis key names of admission state. Everything about one account shares the hash tag
 * `{acct_…}`, so each admission script touches a single cluster slot. Names carry the Redis
 * generation of the shard that holds them (see RedisEpoch): after a Redis server lost or
 * rewound data a new generation starts for the accounts it serves, so their stale mirrors and
 * holds from a snapshot are never read again.
 */
export class AdmissionKeys {
  private common = '0';
  /** Generations of cluster slots, set per shard by RedisEpoch once verified. */
  private readonly bySlot = new Map<number, string>();
  /** The last scope named, since the keys of one script call all share it. */
  private lastScope = { accountId: '', scope: '' };

  constructor(private readonly prefix: string) {}

  /** Generation of every slot without one of its own (a single Redis: all of them). */
  get generation(): string {
    return this.common;
  }

  set generation(generation: string) {
    this.setGeneration(undefined, generation);
  }

  /** The generation an account's keys carry now. */
  generationOf(accountId: string): string {
    // A single Redis has no per-slot generations: no CRC16 of the account on every key.
    if (this.bySlot.size === 0) return this.generation;
    return this.bySlot.get(accountSlot(accountId)) ?? this.generation;
  }

  /** Sets the generation of some slots (a cluster shard), or of all of them. */
  setGeneration(slots: readonly number[] | undefined, generation: string): void {
    this.lastScope = { accountId: '', scope: '' };
    if (slots === undefined) {
      this.common = generation;
      this.bySlot.clear();
      return;
    }
    for (const slot of slots) this.bySlot.set(slot, generation);
  }

  /** The generation of a shard (its lowest slot's), or the common one. */
  generationOfSlots(slots: readonly number[] | undefined): string {
    const first = slots?.[0];
    return (first === undefined ? undefined : this.bySlot.get(first)) ?? this.generation;
  }

  /**
   * The epoch record of a shard: HASH gen, run_id (the server's data identity), since. It
   * lives on the shard it describes (its hash tag maps there); a single Redis has one.
   */
  epoch(shardTag = ''): string {
    return shardTag === '' ? `${this.prefix}:adm:epoch` : `${this.prefix}:adm:epoch:{${shardTag}}`;
  }

  private scope(accountId: string): string {
    if (this.lastScope.accountId !== accountId) this.lastScope = { accountId, scope: `${this.prefix}:adm:${this.generationOf(accountId)}:{${accountId}}` };
    return this.lastScope.scope;
  }

  /** A name in the account's slot for a script key the call does not use (the bare hash tag). */
  unused(accountId: string): string {
    return `{${accountId}}`;
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

  /** Spend mirror of a key for the ISO week (Monday 00:00 UTC) of `at`. */
  spendWeek(accountId: string, keyId: string, at: Date): string {
    return `${this.scope(accountId)}:spend:${keyId}:${weekPeriod(at)}`;
  }

  /** Spend mirror of any owner (key, account, key and end user; see `bucketOwner`) for a period id. */
  spendOf(accountId: string, owner: string, period: string): string {
    return `${this.scope(accountId)}:spend:${owner}:${period}`;
  }

  /** Sliding request log of one end user of a key (its RPM). */
  endUserRequests(accountId: string, keyId: string, endUser: string): string {
    return `${this.scope(accountId)}:rpm:${keyId}:u:${endUser}`;
  }

  /** Token reservations of the last minute (TPM): ZSET request id → admitted at (ms). */
  tokens(accountId: string): string {
    return `${this.scope(accountId)}:tpm`;
  }

  /**
   * Token reservations in detail: HASH request id → `tokens:keyId:endUser`, plus the running
   * totals per scope (`a`, `k:<keyId>`, `u:<keyId>|<endUser>`).
   */
  tokenInfo(accountId: string): string {
    return `${this.scope(accountId)}:tpminfo`;
  }

  /** Stream slot leases of a key: ZSET request id → lease expiry (ms). */
  streams(accountId: string, keyId: string): string {
    return `${this.scope(accountId)}:streams:${keyId}`;
  }

  /** Marks a request whose charge has been applied to the mirrors (idempotency). */
  applied(accountId: string, requestId: string): string {
    return `${this.scope(accountId)}:applied:${requestId}`;
  }

  /** Marks a batch of charges settled from slices that has been applied to the mirrors (idempotency). */
  appliedBatch(accountId: string, batchId: string): string {
    return `${this.scope(accountId)}:applied-batch:${batchId}`;
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

/** The hash slot of an account's admission keys (their hash tag is the account id). */
export function accountSlot(accountId: string): number {
  return keySlot(`{${accountId}}`);
}
