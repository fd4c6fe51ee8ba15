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
 * The spend increments of a batch, each an upsert of its bucket, summed per bucket: a batch of
 * n charges on one account and key is one statement per bucket (the key's lifetime; the day's
 * spend of the key, the account and the end user) instead of n. Spend depends on the costs
 * alone, never on a balance, so it can be written before the balances are known.
 */
export function spendStatements(charges: readonly TotalledCharge[]): UpdateStatement[] {
  const spend = new Map<string, SpendTotal>();
  const add = (id: string, total: SpendTotal): void => {
    const known = spend.get(id);
    if (known) known.amount += total.amount;
    else spend.set(id, total);
  };
  for (const r of charges) {
    add(lifetimeSpendId(r.keyId), { keyId: r.keyId, period: LIFETIME_PERIOD, amount: r.cost });
    const scopes: LimitScope[] = r.endUserTag === undefined ? ['key', 'account'] : ['key', 'account', 'user'];
    for (const scope of scopes) {
      const owner = bucketOwner(scope, { accountId: r.accountId, keyId: r.keyId, endUser: r.endUserTag });
      // Per day only: a week's and a month's spend are the sums of their days (see `daysSoFar`).
      const period = periodOf('day', r.at);
      add(`${owner}:${period}`, { keyId: owner, period, end: resetOf('day', r.at) as Date, amount: r.cost });
    }
  }
  return [...spend].map(([id, t]) => ({
    q: { _id: id },
    u: { $inc: { amount: t.amount }, $setOnInsert: { key_id: t.keyId, period: t.period, ...(t.end ? { expires_at: new Date(t.end.getTime() + KEEP_SPEND_DAYS) } : {}) } },
    upsert: true,
  }));
}

/** What a batch takes from each account's balance, summed per account. */
export class BalanceTotals {
  readonly accounts = new Map<string, { charged: bigint; absorbed: bigint }>();

  add(accountId: string, charged: bigint, absorbed: bigint): void {
    const account = this.accounts.get(accountId) ?? { charged: 0n, absorbed: 0n };
    account.charged += charged;
    account.absorbed += absorbed;
    this.accounts.set(accountId, account);
  }

  /** Balance increments (unless already applied) and the new chain head of each account. */
  accountUpdates(heads: ReadonlyMap<string, ChainHead>, balancesApplied: boolean): UpdateStatement[] {
    return [...this.accounts].map(([id, t]) => {
      const $set = { ledger_head: heads.get(id) };
      return { q: { _id: id }, u: balancesApplied ? { $set } : { $inc: { balance: -t.charged, charged: t.charged, absorbed: t.absorbed }, $set } };
    });
  }
}
