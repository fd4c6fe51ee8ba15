import { LIFETIME_PERIOD, lifetimeSpendId } from '../accounts/index.js';
import { bucketOwner, type LimitScope, periodOf, resetOf } from '../billing/index.js';
import type { UpdateStatement } from './batch-commands.js';
import type { ChainHead } from './ledger-chain.js';

/** What a batch's totals take from one charge. */
export interface TotalledCharge {
  readonly accountId: string;
  readonly keyId: string;
  readonly endUserTag?: string | undefined;
  readonly cost: bigint;
  readonly at: Date;
}

/** How long a day's spend is kept after the day: longer than a month, whose spend sums its days. */
const KEEP_SPEND_DAYS = 40 * 24 * 3600 * 1000;

interface SpendTotal {
  keyId: string;
  period: string;
  /** The end of the period; none for a key's lifetime, whose document stays. */
  end?: Date;
  amount: bigint;
}

/**
 * Increments of one batch summed per document, so a batch of n charges on one account and key
 * is one update of each (account; the key's lifetime; the day's spend of the key, the account
 * and the end user) instead of n: MongoDB applies the same totals either way, with far less
 * work. Every spend document is in `key_spend`, so they all go in one command.
 */
export class BatchTotals {
  readonly accounts = new Map<string, { charged: bigint; absorbed: bigint }>();
  readonly spend = new Map<string, SpendTotal>();

  add(r: TotalledCharge, charged: bigint, absorbed: bigint): void {
    const account = this.accounts.get(r.accountId) ?? { charged: 0n, absorbed: 0n };
    account.charged += charged;
    account.absorbed += absorbed;
    this.accounts.set(r.accountId, account);
    this.addSpend(lifetimeSpendId(r.keyId), { keyId: r.keyId, period: LIFETIME_PERIOD, amount: r.cost });
    const scopes: LimitScope[] = r.endUserTag === undefined ? ['key', 'account'] : ['key', 'account', 'user'];
    for (const scope of scopes) {
      const owner = bucketOwner(scope, { accountId: r.accountId, keyId: r.keyId, endUser: r.endUserTag });
      // Per day only: a week's and a month's spend are the sums of their days (see `daysSoFar`).
      const period = periodOf('day', r.at);
      this.addSpend(`${owner}:${period}`, { keyId: owner, period, end: resetOf('day', r.at) as Date, amount: r.cost });
    }
  }

  private addSpend(id: string, charge: SpendTotal): void {
    const total = this.spend.get(id);
    if (total) total.amount += charge.amount;
    else this.spend.set(id, charge);
  }

  /** Balance increments (unless already applied) and the new chain head of each account. */
  accountUpdates(heads: ReadonlyMap<string, ChainHead>, balancesApplied: boolean): UpdateStatement[] {
    return [...this.accounts].map(([id, t]) => {
      const $set = { ledger_head: heads.get(id) };
      return { q: { _id: id }, u: balancesApplied ? { $set } : { $inc: { balance: -t.charged, charged: t.charged, absorbed: t.absorbed }, $set } };
    });
  }

  /** The spend increments, each an upsert of its bucket. */
  spendUpdates(): UpdateStatement[] {
    return [...this.spend].map(([id, t]) => ({
      q: { _id: id },
      u: { $inc: { amount: t.amount }, $setOnInsert: { key_id: t.keyId, period: t.period, ...(t.end ? { expires_at: new Date(t.end.getTime() + KEEP_SPEND_DAYS) } : {}) } },
      upsert: true,
    }));
  }
}
