import { Slice } from './slice.js';

/** Bounds of the slices a process holds (see docs/limits.md). */
export interface SliceSettings {
  /** How long a slice lives in Redis without a renewal (a killed process's slices are free by then). */
  readonly ttlMs: number;
  /** The largest slice, nano-USD. */
  readonly maxNano: bigint;
  /** A slice nobody took from for this long is handed back. */
  readonly idleMs: number;
}

/** The slices of one holder (account, key, end user, under one set of limits). */
interface Holder {
  readonly slices: Slice[];
  /** Holds of recent requests, nano-USD, each weighing less the older it is (halving every second). */
  recent: number;
  demandAt: number;
  /** Until then, this holder is admitted on the exact path (a slice was refused: near a limit). */
  exactUntil: number;
  /** A slice being granted in the background. */
  growing: boolean;
}

/** A slice lasts about this long at the holder's recent demand. */
const DEMAND_HORIZON_S = 2;
/** The smallest slice holds this many requests of the current size. */
const MIN_REQUESTS = 4;
/** A slice holds at most this fraction (1/n) of the smallest cap it draws on. */
const CAP_SHARE = 4n;
/** How fast a request's weight in the demand fades: it halves every second. */
const DEMAND_DECAY_PER_S = 0.5;
/** A steady rate r of holds h weighs h·r / ln 2 at that decay: this turns the weight back into a rate. */
const WEIGHT_TO_RATE = Math.LN2;
/**
 * `size` rounded down to a whole number (at least one) of holds of `estimate`. A slice that is
 * not a whole number of its requests' holds keeps a remainder that fits none of them once
 * they are spent (a quarter of a cap of ten holds is two and a half): with a few processes
 * each holding such a remainder, the room they strand together makes another process refuse
 * a request that the cap still has room for, until they hand it back. (Nor is a slice cut to
 * what Redis has left: a grant that does not fit is refused whole, and the exact path admits.)
 */
function wholeRequests(size: bigint, estimate: bigint): bigint {
  if (estimate <= 0n) return size;
  const requests = size / estimate;
  return (requests > 1n ? requests : 1n) * estimate;
}

/**
 * A slice is not taken from within this margin of its expiry in Redis: 5 s, or a third of a
 * short TTL (renewals come every third of it, so a renewed slice stays usable between them).
 */
export function expiryMargin(ttlMs: number): number {
  return Math.min(5_000, Math.floor(ttlMs / 3));
}

/**
 * The slices this process holds, per holder, and when each may still be spent: until its last
 * confirmed renewal in Redis (or its grant) plus its TTL, less a margin, by this process's
 * own clock, so an expired slice is never spent, even while Redis cannot be reached.
 */
export class SliceBook {
  private readonly holders = new Map<string, Holder>();

  constructor(private readonly settings: SliceSettings) {}

  private holder(name: string, now: number): Holder {
    let holder = this.holders.get(name);
    if (holder === undefined) this.holders.set(name, (holder = { slices: [], recent: 0, demandAt: now, exactUntil: 0, growing: false }));
    return holder;
  }

  /** Whether a slice granted at `grantedAt`, whose hold was last renewed at `renewedAt`, may be spent at `now`. */
  usable(slice: Slice, renewedAt: number, now: number): boolean {
    return now < Math.max(slice.grantedAt, renewedAt) + this.settings.ttlMs - expiryMargin(this.settings.ttlMs);
  }

  /** Takes `estimate` from a usable slice of the holder; undefined when none has the room. */
  take(name: string, estimate: bigint, renewedAt: number, now: number): Slice | undefined {
    const holder = this.holder(name, now);
    this.noteDemand(holder, estimate, now);
    for (const slice of holder.slices) {
      if (!this.usable(slice, renewedAt, now)) slice.retired = true;
      else if (slice.take(estimate, now)) return slice;
    }
    return undefined;
  }

  /** Adds a slice Redis granted to the holder. */
  add(name: string, slice: Slice): void {
    this.holder(name, slice.grantedAt).slices.push(slice);
  }

  /**
   * The size of the next slice for a request of `estimate`: its recent demand, at least
   * MIN_REQUESTS requests, at most the maximum and a CAP_SHARE of the smallest cap that applies
   * (so a few processes can hold slices of it at once), rounded down to a whole number of
   * requests of `estimate`. Undefined when even one request would not fit that share: such a
   * holder is always near its limit and takes the exact path.
   */
  sizeFor(name: string, estimate: bigint, now: number, smallestCap?: bigint): bigint | undefined {
    const holder = this.holder(name, now);
    const wanted = BigInt(Math.ceil(holder.recent * WEIGHT_TO_RATE * DEMAND_HORIZON_S));
    const least = estimate * BigInt(MIN_REQUESTS);
    const size = wanted > least ? wanted : least;
    const share = smallestCap === undefined ? this.settings.maxNano : smallestCap / CAP_SHARE;
    const max = share < this.settings.maxNano ? share : this.settings.maxNano;
    if (max < estimate) return smallestCap === undefined ? estimate : undefined;
    return wholeRequests(size > max ? max : size, estimate);
  }

  /** True while the holder is admitted on the exact path (near a limit). */
  exact(name: string, now: number): boolean {
    return (this.holders.get(name)?.exactUntil ?? 0) > now;
  }

  /** Near a limit: the holder goes to the exact path for `ms`. */
  goExact(name: string, now: number, ms: number): void {
    this.holder(name, now).exactUntil = now + ms;
  }

  /**
   * Whether to grant the holder another slice ahead of need: its room is under half the slice
   * its demand wants, and none is being granted. Marks it as growing when so.
   */
  wantsMore(name: string, estimate: bigint, renewedAt: number, now: number, smallestCap?: bigint): boolean {
    const holder = this.holders.get(name);
    if (holder === undefined || holder.growing || holder.exactUntil > now) return false;
    let room = 0n;
    for (const slice of holder.slices) if (!slice.retired && this.usable(slice, renewedAt, now)) room += slice.room;
    if (room * 2n >= (this.sizeFor(name, estimate, now, smallestCap) ?? 0n)) return false;
    holder.growing = true;
    return true;
  }

  /** A background grant for the holder ended. */
  grown(name: string): void {
    const holder = this.holders.get(name);
    if (holder) holder.growing = false;
  }

  /**
   * Retires slices that were idle for `idleMs` or can no longer be spent, and returns those
   * to hand back: nothing runs on them, or what still runs was admitted longer than `leakMs`
   * ago (past the longest a request may run: its request never ended, as an exact lease is
   * dropped then). Forgets holders with nothing left.
   */
  sweep(renewedAt: number, now: number, leakMs = Infinity): Slice[] {
    const done: Slice[] = [];
    for (const [name, holder] of this.holders) {
      const keep: Slice[] = [];
      for (const slice of holder.slices) {
        if (now - slice.lastUsed >= this.settings.idleMs || !this.usable(slice, renewedAt, now)) slice.retired = true;
        if (slice.retired && (slice.running === 0 || now - slice.lastUsed > leakMs)) done.push(slice);
        else keep.push(slice);
      }
      holder.slices.splice(0, holder.slices.length, ...keep);
      if (keep.length === 0 && holder.exactUntil <= now && !holder.growing && now - holder.demandAt > 10 * this.settings.idleMs) this.holders.delete(name);
    }
    return done;
  }

  /** Takes a retired slice nothing runs on out of its holder's list (it is handed back now); true when it was there. */
  remove(slice: Slice): boolean {
    for (const holder of this.holders.values()) {
      const at = holder.slices.indexOf(slice);
      if (at < 0) continue;
      holder.slices.splice(at, 1);
      return true;
    }
    return false;
  }

  /** The names of the holders whose name starts with `prefix` (an account's holders). */
  named(prefix: string): string[] {
    return [...this.holders.keys()].filter((name) => name.startsWith(prefix));
  }

  /** The slices of one holder. */
  of(name: string): readonly Slice[] {
    return this.holders.get(name)?.slices ?? [];
  }

  /** Every slice held (tests and diagnostics). */
  all(): Slice[] {
    return [...this.holders.values()].flatMap((holder) => holder.slices);
  }

  private noteDemand(holder: Holder, estimate: bigint, now: number): void {
    // Requests of one millisecond (most, on a busy web) decay nothing: no power to take.
    if (now > holder.demandAt) holder.recent *= DEMAND_DECAY_PER_S ** ((now - holder.demandAt) / 1000);
    holder.recent += Number(estimate);
    holder.demandAt = now;
  }
}
