import type { Collections } from '../db/collections.js';

interface Entry {
  freeTier: boolean;
  expires: number;
}

/**
 * Whether an account is on the free tier, cached per process for a short time. The flag only
 * ever goes from true to false (first top-up); invalidation messages make that visible at
 * once and the TTL bounds the delay when a message is lost.
 */
export class FreeTierCache {
  private readonly entries = new Map<string, Entry>();
  /** Reads in flight by account: concurrent misses share one instead of each querying MongoDB. */
  private readonly pending = new Map<string, Promise<boolean>>();

  constructor(
    private readonly c: Collections,
    private readonly ttlMs = 5_000,
    private readonly store: { readonly writable: boolean } = { writable: true },
  ) {}

  /** True when the account never topped up. Unknown accounts count as not free tier. */
  isFreeTier(accountId: string): Promise<boolean> {
    const now = Date.now();
    const hit = this.entries.get(accountId);
    // While MongoDB is down no top-up can land, so the last answer stays the truth.
    if (hit && (hit.expires > now || !this.store.writable)) return Promise.resolve(hit.freeTier);
    const inFlight = this.pending.get(accountId);
    if (inFlight) return inFlight;
    const read: Promise<boolean> = this.c.accounts.findOne({ _id: accountId }, { projection: { free_tier: 1 } }).then(
      (account) => {
        const freeTier = account?.free_tier ?? false;
        // Forgotten while the read ran: it may predate the change, so it is not cached.
        if (this.pending.get(accountId) !== read) return freeTier;
        this.pending.delete(accountId);
        if (this.entries.size > 50_000) this.entries.clear();
        this.entries.set(accountId, { freeTier, expires: now + this.ttlMs });
        return freeTier;
      },
      (err: unknown) => {
        if (this.pending.get(accountId) === read) this.pending.delete(accountId);
        throw err;
      },
    );
    this.pending.set(accountId, read);
    return read;
  }

  /** Drops an account's entry (it changed somewhere). */
  forget(accountId: string): void {
    this.entries.delete(accountId);
    this.pending.delete(accountId);
  }
}
