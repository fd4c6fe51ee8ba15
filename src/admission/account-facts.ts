import { ReadThroughCache } from '../platform/util/index.js';
import type { AccountCollections, SharedLimits } from '../accounts/index.js';

/** What admission needs to know about an account. */
export interface AccountFacts {
  /** True while the account never topped up. */
  readonly freeTier: boolean;
  /** Limits across all the account's keys. */
  readonly limits: SharedLimits;
}

const UNKNOWN: AccountFacts = { freeTier: false, limits: {} };

/**
 * The free-tier flag and limits of an account, cached per process for a short time. The flag
 * only ever goes from true to false (first top-up) and limits change through the operator
 * API; both publish an account invalidation, which makes the change visible at once, and the
 * TTL bounds the delay when a message is lost.
 */
export class AccountFactsCache {
  private readonly facts: ReadThroughCache<string, AccountFacts>;

  constructor(
    c: AccountCollections,
    ttlMs = 5_000,
    // While MongoDB is down no top-up can land, so the last answer stays the truth.
    store: { readonly writable: boolean } = { writable: true },
  ) {
    this.facts = new ReadThroughCache({
      load: async (accountId) => {
        const account = await c.accounts.findOne({ _id: accountId }, { projection: { free_tier: 1, limits: 1 } });
        return account ? { freeTier: account.free_tier, limits: account.limits ?? {} } : UNKNOWN;
      },
      ttlMs,
      max: 50_000,
      store,
    });
  }

  /** The facts of an account (an unknown account: not free tier, no limits). */
  get(accountId: string): Promise<AccountFacts> {
    return this.facts.get(accountId);
  }

  /** The facts of an account when cached, without waiting (see ReadThroughCache.peek). */
  peek(accountId: string): AccountFacts | undefined {
    return this.facts.peek(accountId)?.value;
  }

  /** Drops an account's entry (it changed somewhere). */
  forget(accountId: string): void {
    this.facts.forget(accountId);
  }
}
