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

  constructor(
    private readonly c: Collections,
    private readonly ttlMs = 5_000,
  ) {}

  /** True when the account never topped up. Unknown accounts count as not free tier. */
  async isFreeTier(accountId: string): Promise<boolean> {
    const now = Date.now();
    const hit = this.entries.get(accountId);
    if (hit && hit.expires > now) return hit.freeTier;
    const account = await this.c.accounts.findOne({ _id: accountId }, { projection: { free_tier: 1 } });
    const freeTier = account?.free_tier ?? false;
    if (this.entries.size > 50_000) this.entries.clear();
    this.entries.set(accountId, { freeTier, expires: now + this.ttlMs });
    return freeTier;
  }

  /** Drops an account's entry (it changed somewhere). */
  forget(accountId: string): void {
    this.entries.delete(accountId);
  }
}
