import { ReadThroughCache } from '../util/read-through-cache.js';
import type { AccountCollections } from '../accounts/account-collection.js';

/**
 * Whether an account is on the free tier, cached per process for a short time. The flag only
 * ever goes from true to false (first top-up); invalidation messages make that visible at
 * once and the TTL bounds the delay when a message is lost.
 */
export class FreeTierCache {
  private readonly flags: ReadThroughCache<string, boolean>;

  constructor(
    c: AccountCollections,
    ttlMs = 5_000,
    // While MongoDB is down no top-up can land, so the last answer stays the truth.
    store: { readonly writable: boolean } = { writable: true },
  ) {
    this.flags = new ReadThroughCache({
      load: async (accountId) => {
        const account = await c.accounts.findOne({ _id: accountId }, { projection: { free_tier: 1 } });
        return account?.free_tier ?? false;
      },
      ttlMs,
      max: 50_000,
      store,
    });
  }

  /** True when the account never topped up. Unknown accounts count as not free tier. */
  isFreeTier(accountId: string): Promise<boolean> {
    return this.flags.get(accountId);
  }

  /** Drops an account's entry (it changed somewhere). */
  forget(accountId: string): void {
    this.flags.forget(accountId);
  }
}
