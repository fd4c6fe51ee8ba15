import type { AnyBulkWriteOperation, ClientSession } from 'mongodb';
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

function spendUpdates(keyId: string, at: Date, cost: bigint): AnyBulkWriteOperation<KeySpendDoc>[] {
  const periods: Array<[string, Date]> = [
    [dayPeriod(at), nextDayStart(at)],
    [monthPeriod(at), nextMonthStart(at)],
  ];
  return periods.map(([period, end]) => ({
    updateOne: {
      filter: { _id: `${keyId}:${period}` },
      update: { $inc: { amount: cost }, $setOnInsert: { key_id: keyId, period, expires_at: new Date(end.getTime() + KEEP_SPEND_DAYS) } },
      upsert: true,
    },
  }));
}

/**
 * Applies a batch of charges inside the caller's transaction. Request ids already in the
 * ledger are reported as duplicates and change nothing. Balances floor at zero; the part of
 * a cost a balance cannot cover is recorded as absorbed.
 */
export async function applyCharges(
  c: Collections,
  session: ClientSession,
  requests: readonly ChargeRequest[],
): Promise<Map<string, ChargeOutcome>> {
  const outcomes = new Map<string, ChargeOutcome>();
  const ids = [...new Set(requests.map((r) => r.requestId))];
  const existing = await c.ledger.find({ _id: { $in: ids } }, { session }).toArray();
  for (const entry of existing) outcomes.set(entry._id, outcomeOf(entry, true));

  const seen = new Set(outcomes.keys());
  const fresh = requests.filter((r) => !seen.has(r.requestId) && seen.add(r.requestId));
  if (fresh.length === 0) return outcomes;

  const accountIds = [...new Set(fresh.map((r) => r.accountId))];
  const accounts = await c.accounts.find({ _id: { $in: accountIds } }, { session, projection: { balance: 1 } }).toArray();
  const balances = new Map(accounts.map((a: Pick<AccountDoc, '_id' | 'balance'>) => [a._id, a.balance]));

  const entries: LedgerDoc[] = [];
  const accountOps: AnyBulkWriteOperation<AccountDoc>[] = [];
  const keyOps: AnyBulkWriteOperation<KeyDoc>[] = [];
  const spendOps: AnyBulkWriteOperation<KeySpendDoc>[] = [];
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
    accountOps.push({ updateOne: { filter: { _id: r.accountId }, update: { $inc: { balance: -charged, charged, absorbed } } } });
    keyOps.push({ updateOne: { filter: { _id: r.keyId }, update: { $inc: { spend: r.cost } } } });
    spendOps.push(...spendUpdates(r.keyId, r.at, r.cost));
  }
  await c.ledger.insertMany(entries, { session, ordered: true });
  await c.accounts.bulkWrite(accountOps, { session, ordered: false });
  await c.keys.bulkWrite(keyOps, { session, ordered: false });
  await c.keySpend.bulkWrite(spendOps, { session, ordered: false });
  return outcomes;
}
