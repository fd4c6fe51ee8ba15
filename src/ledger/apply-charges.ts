import type { AnyBulkWriteOperation, ClientSession, Document } from 'mongodb';
import type { AccountDoc } from '../accounts/account-types.js';
import { minBig, maxBig } from '../billing/money.js';
import { dayPeriod, monthPeriod, nextDayStart, nextMonthStart } from '../billing/periods.js';
import type { Collections } from '../db/collections.js';
import type { KeyDoc, KeySpendDoc } from '../keys/key-types.js';
import type { LedgerDoc } from './ledger-types.js';

/** One metered request to record. */
export interface ChargeRequest {
  requestId: string;
  accountId: string;
  keyId: string;
  model: string;
  /** Full metered cost, nano-USD. */
  cost: bigint;
  units?: Record<string, number>;
  /** When the request happened (decides the day/month spend buckets). */
  at: Date;
}

/** What a charge did to the balance. */
export interface ChargeOutcome {
  cost: bigint;
  charged: bigint;
  absorbed: bigint;
  /** True when this request id had been charged before; nothing was charged again. */
  duplicate: boolean;
}

const KEEP_SPEND_DAYS = 40 * 24 * 3600 * 1000;

function outcomeOf(entry: LedgerDoc, duplicate: boolean): ChargeOutcome {
  return { cost: entry.cost, charged: entry.charged, absorbed: entry.absorbed, duplicate };
}

interface SpendTotal {
  keyId: string;
  period: string;
  end: Date;
  amount: bigint;
}

/**
 * Increments of one batch summed per document, so a batch of n charges on one account and key
 * is one update of each (account, key, day and month spend) instead of n: MongoDB applies the
 * same totals either way, with far less work.
 */
class BatchTotals {
  readonly accounts = new Map<string, { charged: bigint; absorbed: bigint }>();
  readonly keys = new Map<string, bigint>();
  readonly spend = new Map<string, SpendTotal>();

  add(r: ChargeRequest, charged: bigint, absorbed: bigint): void {
    const account = this.accounts.get(r.accountId) ?? { charged: 0n, absorbed: 0n };
    account.charged += charged;
    account.absorbed += absorbed;
    this.accounts.set(r.accountId, account);
    this.keys.set(r.keyId, (this.keys.get(r.keyId) ?? 0n) + r.cost);
    const periods: Array<[string, Date]> = [
      [dayPeriod(r.at), nextDayStart(r.at)],
      [monthPeriod(r.at), nextMonthStart(r.at)],
    ];
    for (const [period, end] of periods) {
      const id = `${r.keyId}:${period}`;
      const total = this.spend.get(id) ?? { keyId: r.keyId, period, end, amount: 0n };
      total.amount += r.cost;
      this.spend.set(id, total);
    }
  }

  accountOps(): AnyBulkWriteOperation<AccountDoc>[] {
    return [...this.accounts].map(([id, t]) => ({
      updateOne: { filter: { _id: id }, update: { $inc: { balance: -t.charged, charged: t.charged, absorbed: t.absorbed } } },
    }));
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

/** How a batch learns which of its request ids are already in the ledger. */
export type DuplicateCheck = 'read-first' | 'on-conflict';

/**
 * Up to this many accounts in a batch, each account's balance is read and updated by one
 * findOneAndUpdate (a round trip per account); beyond it, one find and one bulkWrite (two
 * round trips) serve all accounts. Most batches of a busy gateway charge one account.
 */
const UPDATE_EACH_ACCOUNT_UP_TO = 1;

/**
 * Thrown when an entry of the batch is already in the ledger although the batch did not read
 * the ledger first: the transaction is void, and the batch is retried with `read-first`.
 */
export class AlreadyCharged extends Error {
  constructor() {
    super('a charge of the batch is already in the ledger');
    this.name = 'AlreadyCharged';
  }
}

/**
 * The balance update of one account charged `total` in one batch, as an aggregation pipeline
 * so MongoDB applies the floor itself: what leaves the balance is min(total, max(balance, 0)),
 * exactly the sum the charges take one by one; the rest is absorbed.
 */
function floorUpdate(total: bigint): Document[] {
  const taken = { $min: [total, { $max: ['$balance', 0n] }] };
  return [
    {
      $set: {
        balance: { $subtract: ['$balance', taken] },
        charged: { $add: [{ $ifNull: ['$charged', 0n] }, taken] },
        absorbed: { $add: [{ $ifNull: ['$absorbed', 0n] }, { $subtract: [total, taken] }] },
      },
    },
  ];
}

/**
 * Balances before the batch, each account's update already applied in the transaction when
 * the batch has few accounts (one round trip per account instead of a read and a write).
 */
async function balancesBefore(
  c: Collections,
  session: ClientSession,
  fresh: readonly ChargeRequest[],
): Promise<{ balances: Map<string, bigint>; updated: boolean }> {
  const costs = new Map<string, bigint>();
  for (const r of fresh) costs.set(r.accountId, (costs.get(r.accountId) ?? 0n) + r.cost);
  const balances = new Map<string, bigint>();
  if (costs.size > UPDATE_EACH_ACCOUNT_UP_TO) {
    const accounts = await c.accounts.find({ _id: { $in: [...costs.keys()] } }, { session, projection: { balance: 1 } }).toArray();
    for (const a of accounts as Array<Pick<AccountDoc, '_id' | 'balance'>>) balances.set(a._id, a.balance);
    return { balances, updated: false };
  }
  for (const [id, total] of costs) {
    const before = await c.accounts.findOneAndUpdate({ _id: id }, floorUpdate(total), {
      session,
      returnDocument: 'before',
      projection: { balance: 1 },
    });
    if (before) balances.set(id, before.balance);
  }
  return { balances, updated: true };
}

/**
 * Applies a batch of charges inside the caller's transaction. Request ids already in the
 * ledger are reported as duplicates and change nothing. Balances floor at zero; the part of
 * a cost a balance cannot cover is recorded as absorbed.
 *
 * With `on-conflict` the ledger is not read first (replays are rare, and a read is a round
 * trip every commit waits for): an id already there fails the entry insert with a duplicate
 * key, which voids the transaction and surfaces as `AlreadyCharged`; the caller then runs the
 * batch again with `read-first`.
 */
export async function applyCharges(
  c: Collections,
  session: ClientSession,
  requests: readonly ChargeRequest[],
  check: DuplicateCheck = 'read-first',
): Promise<Map<string, ChargeOutcome>> {
  const outcomes = new Map<string, ChargeOutcome>();
  if (check === 'read-first') {
    const ids = [...new Set(requests.map((r) => r.requestId))];
    const existing = await c.ledger.find({ _id: { $in: ids } }, { session }).toArray();
    for (const entry of existing) outcomes.set(entry._id, outcomeOf(entry, true));
  }

  const seen = new Set(outcomes.keys());
  const fresh = requests.filter((r) => !seen.has(r.requestId) && seen.add(r.requestId));
  if (fresh.length === 0) return outcomes;

  const { balances, updated } = await balancesBefore(c, session, fresh);
  const entries: LedgerDoc[] = [];
  const totals = new BatchTotals();
  for (const r of fresh) {
    const balance = balances.get(r.accountId);
    if (balance === undefined) throw new Error(`charge for unknown account ${r.accountId}`);
    const charged = minBig(r.cost, maxBig(balance, 0n));
    const absorbed = r.cost - charged;
    balances.set(r.accountId, balance - charged);
    const entry: LedgerDoc = {
      _id: r.requestId,
      account_id: r.accountId,
      kind: 'charge',
      credit: 0n,
      cost: r.cost,
      charged,
      absorbed,
      key_id: r.keyId,
      model: r.model,
      reference: null,
      units: r.units ?? null,
      created_at: r.at,
    };
    entries.push(entry);
    outcomes.set(r.requestId, outcomeOf(entry, false));
    totals.add(r, charged, absorbed);
  }
  try {
    await c.ledger.insertMany(entries, { session, ordered: true });
  } catch (err) {
    if (check === 'on-conflict' && (err as { code?: unknown }).code === 11000) throw new AlreadyCharged();
    throw err;
  }
  if (!updated) await c.accounts.bulkWrite(totals.accountOps(), { session, ordered: false });
  await c.keys.bulkWrite(totals.keyOps(), { session, ordered: false });
  await c.keySpend.bulkWrite(totals.spendOps(), { session, ordered: false });
  return outcomes;
}
