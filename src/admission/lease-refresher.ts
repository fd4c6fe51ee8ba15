import type { Logger } from 'pino';
import type { Clock } from '../billing/index.js';
import { keySlot, type Redis } from '../platform/redis/index.js';
import type { AdmissionKeys } from './admission-keys.js';
import { runScript } from './lua-commands.js';
import { SCRIPT_KEYS } from './script-keys.js';

/** How soon leases whose refresh failed are placed again. */
const RETRY_MS = 250;

/** The hold and stream slot of one running request, kept alive while it runs. */
export interface Lease {
  readonly requestId: string;
  readonly accountId: string;
  readonly keyId: string;
  /** The end user's tag, when the request named one (its hold counts for the end user too). */
  readonly endUser?: string | undefined;
  /** Amount held, nano-USD (0: no hold). */
  readonly held: bigint;
  /** Holds a stream slot. */
  readonly stream: boolean;
  /** Wall-clock ms after which the lease is dropped and never renewed again. */
  readonly deadline: number;
  /** How long its hold lives without a renewal (absent: the hold TTL): a slice's is shorter. */
  readonly ttlMs?: number;
}

/** How long one refresh extends each kind of entry. */
export interface LeaseTimings {
  readonly intervalMs: number;
  readonly holdTtlMs: number;
  readonly streamTtlMs: number;
  /** TTL of the containers (holds ZSET, totals) so they outlive their members. */
  readonly containerTtlMs: number;
}

/**
 * Keeps the holds and stream slots of running requests from expiring. A crashed process stops
 * refreshing, so its holds and slots lapse after their TTL (crash safety); a finished request
 * is untracked by its ticket, and a lease past its deadline is dropped even if its request
 * never settled, so no lease outlives its request by more than one TTL.
 */
export class LeaseRefresher {
  private readonly leases = new Map<string, Lease>();
  private readonly timer: NodeJS.Timeout;
  /** Refresh rounds in a row that failed for some lease. */
  private failures = 0;
  /** When the last round that renewed every lease was sent (ms; 0: none yet). */
  renewedAt = 0;

  constructor(
    private readonly redis: Redis,
    private readonly keys: AdmissionKeys,
    private readonly clock: Clock,
    private readonly log: Logger,
    private readonly timings: LeaseTimings,
  ) {
    this.timer = setInterval(() => void this.refresh(), timings.intervalMs);
    this.timer.unref();
  }

  /**
   * Starts refreshing a request's entries, placed in `generation`. If a new generation started
   * meanwhile, they are placed again in it at once.
   */
  track(lease: Lease, generation = this.keys.generationOf(lease.accountId)): void {
    if (lease.held === 0n && !lease.stream) return;
    this.leases.set(lease.requestId, lease);
    if (generation === this.keys.generationOf(lease.accountId)) return;
    this.place([lease], this.clock().getTime()).catch((err: unknown) => {
      this.log.warn({ err, request_id: lease.requestId }, 're-placing a hold in the new Redis generation failed');
    });
  }

  /** Stops renewing (and re-placing) a request's stream slot; its hold stays tracked. */
  dropStream(requestId: string): void {
    const lease = this.leases.get(requestId);
    if (lease === undefined || !lease.stream) return;
    if (lease.held === 0n) this.leases.delete(requestId);
    else this.leases.set(requestId, { ...lease, stream: false });
  }

  /** Stops refreshing a request's entries. */
  untrack(requestId: string): void {
    this.leases.delete(requestId);
  }

  /** Request ids whose leases are being renewed (for tests and diagnostics). */
  tracked(): string[] {
    return [...this.leases.keys()];
  }

  /** Re-places every live hold and slot (of the accounts `which` selects) under the current generation. */
  async replaceAll(which: (accountId: string) => boolean = () => true): Promise<void> {
    const now = this.clock().getTime();
    await this.place([...this.live(now)].filter((l) => which(l.accountId)), now);
  }

  private async place(leases: readonly Lease[], now: number): Promise<void> {
    const k = this.keys;
    const t = this.timings;
    await Promise.all(
      leases.map((l) =>
        runScript(
          this.redis,
          'place',
          SCRIPT_KEYS.place(k, { accountId: l.accountId, keyId: l.keyId, requestId: l.requestId, at: new Date(now) }),
          [l.requestId, l.held.toString(), l.endUser === undefined ? l.keyId : `${l.keyId}|${l.endUser}`, now + (l.ttlMs ?? t.holdTtlMs), l.stream ? now + t.streamTtlMs : -1, t.containerTtlMs],
        ),
      ),
    );
  }

  /** Stops the timer. */
  stop(): void {
    clearInterval(this.timer);
  }

  /** Leases still within their deadline; the others are dropped for good. */
  private *live(now: number): Iterable<Lease> {
    // Deleting the entry being visited is safe while iterating a Map: no copy of every lease per tick.
    for (const lease of this.leases.values()) {
      if (lease.deadline > now) {
        yield lease;
        continue;
      }
      this.leases.delete(lease.requestId);
      this.log.warn({ request_id: lease.requestId }, 'admission lease reached its maximum age; no longer renewed');
    }
  }

  private async refresh(): Promise<void> {
    if (this.leases.size === 0) return;
    const now = this.clock().getTime();
    const groups = new Map<number, Lease[]>();
    const slots = new Map<string, number>();
    for (const l of this.live(now)) {
      let slot = slots.get(l.accountId);
      if (slot === undefined) slots.set(l.accountId, (slot = keySlot(this.keys.holds(l.accountId))));
      // Appended in place: copying the group per lease made a tick quadratic in the open requests.
      const group = groups.get(slot);
      if (group === undefined) groups.set(slot, [l]);
      else group.push(l);
    }
    // One pipeline per hash slot: on a cluster a pipeline must stay within one slot.
    const failed = (await Promise.all([...groups.values()].map((g) => this.refreshGroup(g, now)))).flat();
    if (failed.length === 0) {
      this.failures = 0;
      this.renewedAt = now;
      return;
    }
    this.failures++;
    this.log.warn({ leases: failed.length, attempt: this.failures }, 'refreshing admission leases failed; placing them again shortly');
    // A hold whose refresh failed may lapse before the next tick: retry soon, with PLACE, which
    // also puts back an entry that expired or moved to a replica that never had it.
    const retry = setTimeout(() => void this.place(failed, this.clock().getTime()).catch(() => undefined), RETRY_MS);
    retry.unref();
  }

  /** Extends one slot's leases; returns those whose refresh did not succeed. */
  private async refreshGroup(leases: readonly Lease[], now: number): Promise<Lease[]> {
    const k = this.keys;
    const t = this.timings;
    // One ZADD per sorted set and one PEXPIRE per container, not commands per lease: thousands
    // of open streams of one account would otherwise queue thousands of commands every tick.
    const holds = new Map<string, Array<number | string>>();
    const streams = new Map<string, Array<number | string>>();
    for (const l of leases) {
      // A lease without a stream is a hold even at 0: a slice spent to its end still holds, in
      // Redis, the charges on their way there (its lease reads its size, see LeasedAdmission).
      if (l.held > 0n || !l.stream) membersOf(holds, l.accountId).push(now + (l.ttlMs ?? t.holdTtlMs), l.requestId);
      if (l.stream) membersOf(streams, k.streams(l.accountId, l.keyId)).push(now + t.streamTtlMs, l.requestId);
    }
    const pipeline = this.redis.pipeline();
    for (const [accountId, members] of holds) {
      // XX: never resurrect an entry that was freed or lost; a new generation re-places them.
      for (const part of chunks(members)) pipeline.zadd(k.holds(accountId), 'XX', ...part);
      for (const key of [k.holds(accountId), k.holdInfo(accountId), k.heldTotal(accountId), k.keyHeld(accountId)]) pipeline.pexpire(key, t.containerTtlMs);
    }
    for (const [key, members] of streams) {
      for (const part of chunks(members)) pipeline.zadd(key, 'XX', ...part);
      pipeline.pexpire(key, t.containerTtlMs);
    }
    try {
      const replies = await pipeline.exec();
      return replies?.some(([err]) => err !== null) ? [...leases] : [];
    } catch {
      return [...leases];
    }
  }
}

/** Score and member pairs per ZADD: long enough to be few commands, short enough to spread as arguments. */
const PAIRS_PER_ZADD = 512;

function membersOf(sets: Map<string, Array<number | string>>, key: string): Array<number | string> {
  let members = sets.get(key);
  if (members === undefined) sets.set(key, (members = []));
  return members;
}

function* chunks(members: ReadonlyArray<number | string>): Iterable<Array<number | string>> {
  for (let i = 0; i < members.length; i += 2 * PAIRS_PER_ZADD) yield members.slice(i, i + 2 * PAIRS_PER_ZADD);
}
