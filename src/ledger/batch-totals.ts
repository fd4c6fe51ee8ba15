import type { AnyBulkWriteOperation } from 'mongodb';
import type { AccountDoc, KeyDoc, KeySpendDoc } from '../accounts/index.js';
import { bucketOwner, type LimitScope, periodOf, resetOf } from '../billing/index.js';
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
  end: Date;
  amount: bigint;
}

/**
 * Increments of one batch summed per document, so a batch of n charges on one account and key
 * is one update of each (account, key, and the day's spend of the key, the account and the end
 * user) instead of n: MongoDB applies the same totals either way, with far less work.
 */
export class BatchTotals {
  readonly accounts = new Map<string, { charged: bigint; absorbed: bigint }>();
  readonly keys = new Map<string, bigint>();
  readonly spend = new Map<string, SpendTotal>();

  add(r: TotalledCharge, charged: bigint, absorbed: bigint): void {
    const account = this.accounts.get(r.accountId) ?? { charged: 0n, absorbed: 0n };
    account.charged += charged;
    account.absorbed += absorbed;
    this.accounts.set(r.accountId, account);
    this.keys.set(r.keyId, (this.keys.get(r.keyId) ?? 0n) + r.cost);
    const scopes: LimitScope[] = r.endUserTag === undefined ? ['key', 'account'] : ['key', 'account', 'user'];
    for (const scope of scopes) {
      const owner = bucketOwner(scope, { accountId: r.accountId, keyId: r.keyId, endUser: r.endUserTag });
      // Per day only: a week's and a month's spend are the sums of their days (see `daysSoFar`).
      this.addSpend(owner, periodOf('day', r.at), resetOf('day', r.at) as Date, r.cost);
    }
  }

  private addSpend(owner: string, period: string, end: Date, cost: bigint): void {
    const id = `${owner}:${period}`;
    const total = this.spend.get(id) ?? { keyId: owner, period, end, amount: 0n };
    total.amount += cost;
    this.spend.set(id, total);
  }

  /** Balance increments (unless already applied) and the new chain head of each account. */
  accountOps(heads: ReadonlyMap<string, ChainHead>, balancesApplied: boolean): AnyBulkWriteOperation<AccountDoc>[] {
    return [...this.accounts].map(([id, t]) => {
      const $set = { ledger_head: heads.get(id) };
      const update = balancesApplied ? { $set } : { $inc: { balance: -t.charged, charged: t.charged, absorbed: t.absorbed }, $set };
      return { updateOne: { filter: { _id: id }, update } };
    });
  }

  keyOps(): AnyBulkWriteOperation<KeyDoc>[] {
    return [...this.keys].map(([id, spend]) => ({ updateOne: { filter: { _id: id }, update: { $inc: { spend } } } }));
  }

  spendOps(): AnyBulkWriteOperation<KeySpendDoc>[] {
    return [...this.spend].map(([id, t]) => ({
      updateOne: {
        filter: { _id: id },
        update: { $inc: { amount: t.amount }, $setOnInsert: { key_id: t.keyId, period: t.period, expires_at: new Date(t.end.getTime() + KEEP_SPEND_DAYS) } },
        upsert: true,
      },
    }));
  }
}
