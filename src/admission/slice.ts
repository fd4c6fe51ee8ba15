import type { AdmissionTicket } from './admission-types.js';

/** Whose budgets a slice draws on. */
export interface SliceOwner {
  readonly accountId: string;
  readonly keyId: string;
  /** The end user's tag ('' for requests that name none). */
  readonly endUser: string;
}

/**
 * One slice a process holds of a holder's budgets (balance and every spend cap that applies to
 * its key, account and end user): a hold in Redis, placed by the exact path like a request's,
 * that this process admits requests against without a round trip. `size` is what the hold
 * will be once every charge settled from it has reached Redis; `reserved` is what its running
 * requests hold; the difference is the room left.
 */
export class Slice {
  size: bigint;
  reserved = 0n;
  /** Requests admitted from it and not yet settled or released. */
  running = 0;
  /** When it was last taken from (ms, the process clock). */
  lastUsed: number;
  /** No more takes (idle, expired or the holder's limits changed); released once `running` is 0. */
  retired = false;

  constructor(
    /** Its hold id in Redis (a synthetic request id). */
    readonly id: string,
    size: bigint,
    /** The exact path's ticket for the hold: releasing it drops the hold. */
    readonly ticket: AdmissionTicket,
    /** When Redis granted it (ms). */
    readonly grantedAt: number,
    readonly owner: SliceOwner,
  ) {
    this.size = size;
    this.lastUsed = grantedAt;
  }

  get room(): bigint {
    return this.size - this.reserved;
  }

  /** Takes `estimate` for a request if it fits. */
  take(estimate: bigint, now: number): boolean {
    if (this.retired || this.room < estimate) return false;
    this.reserved += estimate;
    this.running++;
    this.lastUsed = now;
    return true;
  }

  /** Reserves `extra` more for a request already admitted from it, if it has the room. */
  reserve(extra: bigint): boolean {
    if (this.retired || this.room < extra) return false;
    this.reserved += extra;
    return true;
  }

  /** A request admitted from it ended: its hold comes back, less what it was charged. */
  put(estimate: bigint, cost: bigint): void {
    this.reserved -= estimate;
    this.size -= cost;
    this.running--;
  }
}
