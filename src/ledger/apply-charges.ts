import type { ClientSession, Document } from 'mongodb';
import type { AccountCollections, AccountDoc, KeyCollections } from '../accounts/index.js';
import { type CostLineWire, maxBig, minBig } from '../billing/index.js';
import { type BatchCommands, BatchWriteError } from './batch-commands.js';
import { BatchTotals } from './batch-totals.js';
import { linkEntry, type ChainHead } from './ledger-chain.js';
import type { LedgerCollections } from './ledger-collection.js';
import type { LedgerDoc } from './ledger-types.js';
import { DUPLICATE_KEY } from '../platform/db/index.js';

/** One metered request to record. */
export interface ChargeRequest {
  requestId: string;
  accountId: string;
  keyId: string;
  /** The tag of the end user the request named (its spend buckets), if any. */
  endUserTag?: string;
  model: string;
  /** What the request is billed, nano-USD (at most its hold). */
  cost: bigint;
  /** Metered cost beyond the hold, absorbed by the operator (an upstream broke its limit). */
  overLimit?: bigint;
  /** The metered components and the version of the prices they used. */
  lines?: CostLineWire[];
  priceVersion?: string;
  units?: Record<string, number>;
  /** When the request happened (decides the day, week and month spend buckets). */
  at: Date;
}

/** What a charge did to the balance. */
export interface ChargeOutcome {
  cost: bigint;
  charged: bigint;
  absorbed: bigint;
  /** True when this request id had been charged before; nothing was charged again. */
  duplicate: boolean;
  /** The entry's `prev_hash` in the account's chain; absent while the charge is only spooled. */
  prevHash?: string;
  /** The entry's own hash. */
  hash?: string;
  /** The entry's position in the account's chain. */
  seq?: number;
  lines?: CostLineWire[];
  priceVersion?: string;
}

/** The collections a batch of charges writes, and the commands that write them. */
export interface ChargeStore {
  readonly c: AccountCollections & KeyCollections & LedgerCollections;
  readonly commands: BatchCommands;
}

function outcomeOf(entry: LedgerDoc, duplicate: boolean): ChargeOutcome {
  const outcome: ChargeOutcome = { cost: entry.cost, charged: entry.charged, absorbed: entry.absorbed, duplicate, prevHash: entry.prev_hash, hash: entry.hash, seq: entry.seq };
  if (entry.cost_details !== undefined) outcome.lines = entry.cost_details;
  if (entry.price_version !== undefined) outcome.priceVersion = entry.price_version;
  return outcome;
}

/** How a batch learns which of its request ids are already in the ledger. */
export type DuplicateCheck = 'read-first' | 'on-conflict';

/**
 * Up to this many accounts in a batch, each account's balance is read and updated by one
 * findAndModify (a round trip per account); beyond it, one find and one update command (two
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

/** The chain head this process last committed per account: what a batch's links are guessed from. */
export type HeadHints = ReadonlyMap<string, ChainHead>;

/**
 * The balance update of one account charged `total` in one batch, as an aggregation pipeline
 * so MongoDB applies the floor itself: what leaves the balance is min(total, max(balance, 0)),
 * exactly the sum the charges take one by one; the rest is absorbed. With a `guess`, the new
 * chain head is set in the same update when its premises hold (the head is the one hinted and
 * the balance covers the whole batch), which saves a round trip per batch.
 */
function floorUpdate(total: bigint, overLimit: bigint, guess?: { prev: string; head: ChainHead }): Document[] {
  const taken = { $min: [total, { $max: ['$balance', 0n] }] };
  const set: Document = {
    balance: { $subtract: ['$balance', taken] },
    charged: { $add: [{ $ifNull: ['$charged', 0n] }, taken] },
    // Metered cost beyond the holds is absorbed too: it never reached the balance.
    absorbed: { $add: [{ $ifNull: ['$absorbed', 0n] }, { $subtract: [total, taken] }, overLimit] },
  };
  if (guess) {
    const holds = { $and: [{ $eq: ['$ledger_head.hash', guess.prev] }, { $gte: ['$balance', total] }] };
    set.ledger_head = { $cond: [holds, { $literal: guess.head }, '$ledger_head'] };
  }
  return [{ $set: set }];
}

/** A batch's entries, outcomes and totals, computed from the balances and heads before it. */
interface Built {
  entries: LedgerDoc[];
  outcomes: Map<string, ChargeOutcome>;
  totals: BatchTotals;
  heads: Map<string, ChainHead>;
}

function build(fresh: readonly ChargeRequest[], balancesBefore: ReadonlyMap<string, bigint>, headsBefore: ReadonlyMap<string, ChainHead | undefined>): Built {
  const balances = new Map(balancesBefore);
  const built: Built = { entries: [], outcomes: new Map(), totals: new BatchTotals(), heads: new Map() };
  for (const r of fresh) {
    const balance = balances.get(r.accountId);
    if (balance === undefined) throw new Error(`charge for unknown account ${r.accountId}`);
    const charged = minBig(r.cost, maxBig(balance, 0n));
    const absorbed = r.cost - charged;
    balances.set(r.accountId, balance - charged);
    const entry: LedgerDoc = {
      _id: r.requestId, account_id: r.accountId, kind: 'charge', credit: 0n, cost: r.cost, charged, absorbed,
      key_id: r.keyId, model: r.model, reference: null, units: r.units ?? null, created_at: r.at,
    };
    // Set before linking: lines, price version and over-limit are money facts the hash covers.
    if (r.lines !== undefined) entry.cost_details = r.lines;
    if (r.priceVersion !== undefined) entry.price_version = r.priceVersion;
    if (r.overLimit !== undefined && r.overLimit > 0n) {
      entry.over_limit = r.overLimit;
      entry.absorbed_reason = 'upstream_over_limit';
    }
    built.heads.set(r.accountId, linkEntry(entry, built.heads.get(r.accountId) ?? headsBefore.get(r.accountId)));
    built.entries.push(entry);
    built.outcomes.set(r.requestId, outcomeOf(entry, false));
    built.totals.add(r, charged, absorbed + (r.overLimit ?? 0n));
  }
  return built;
}

type AccountRead = Pick<AccountDoc, '_id' | 'balance' | 'ledger_head'>;
const PROJECTION = { balance: 1, ledger_head: 1 };

/**
 * Reads the accounts of a batch and builds it. Within the transaction each account document is
 * read and written, so a concurrent writer of the same account (another process, a top-up)
 * conflicts and retries: the chain cannot fork. One account: one findAndModify that applies
 * the balance and, when the hinted head was right, the new head too. More: one find, and the
 * balances and heads go in one update command later.
 */
async function readAndBuild(
  { c, commands }: ChargeStore,
  session: ClientSession,
  fresh: readonly ChargeRequest[],
  hints: HeadHints | undefined,
): Promise<{ built: Built; balancesApplied: boolean; headsApplied: boolean }> {
  const costs = new Map<string, bigint>();
  let overLimit = 0n;
  for (const r of fresh) {
    costs.set(r.accountId, (costs.get(r.accountId) ?? 0n) + r.cost);
    overLimit += r.overLimit ?? 0n;
  }
  if (costs.size > UPDATE_EACH_ACCOUNT_UP_TO) {
    const accounts = (await c.accounts.find({ _id: { $in: [...costs.keys()] } }, { session, projection: PROJECTION }).toArray()) as AccountRead[];
    const built = build(fresh, new Map(accounts.map((a) => [a._id, a.balance])), new Map(accounts.map((a) => [a._id, a.ledger_head])));
    return { built, balancesApplied: false, headsApplied: false };
  }
  const [[id, total]] = [...costs] as [[string, bigint]];
  const hint = hints?.get(id);
  // Built as if the balance covers the batch, after the hinted head: right in the common case.
  const guess = hint ? build(fresh, new Map([[id, total]]), new Map([[id, hint]])) : undefined;
  const head = guess?.heads.get(id);
  const update = floorUpdate(total, overLimit, hint && head ? { prev: hint.hash, head } : undefined);
  const before = (await commands.findAndModify(c.accounts, { _id: id }, update, PROJECTION, session)) as AccountRead | null;
  if (!before) throw new Error(`charge for unknown account ${id}`);
  if (guess && hint && before.balance >= total && before.ledger_head?.hash === hint.hash) return { built: guess, balancesApplied: true, headsApplied: true };
  return { built: build(fresh, new Map([[id, before.balance]]), new Map([[id, before.ledger_head]])), balancesApplied: true, headsApplied: false };
}

/**
 * Applies a batch of charges inside the caller's transaction. Request ids already in the
 * ledger are reported as duplicates and change nothing. Balances floor at zero; the part of
 * a cost a balance cannot cover is recorded as absorbed. Each new entry is linked into its
 * account's hash chain after the head read from the account document, and the new head is
 * written back in the same transaction (`hints`: the heads this process expects, see
 * `readAndBuild`).
 *
 * With `on-conflict` the ledger is not read first (replays are rare, and a read is a round
 * trip every commit waits for): an id already there fails the entry insert with a duplicate
 * key, which voids the transaction and surfaces as `AlreadyCharged`; the caller then runs the
 * batch again with `read-first`.
 */
export async function applyCharges(
  store: ChargeStore,
  session: ClientSession,
  requests: readonly ChargeRequest[],
  check: DuplicateCheck = 'read-first',
  hints?: HeadHints,
): Promise<Map<string, ChargeOutcome>> {
  const { c, commands } = store;
  const outcomes = new Map<string, ChargeOutcome>();
  if (check === 'read-first') {
    const ids = [...new Set(requests.map((r) => r.requestId))];
    const existing = await c.ledger.find({ _id: { $in: ids } }, { session }).toArray();
    for (const entry of existing) outcomes.set(entry._id, outcomeOf(entry, true));
  }

  const seen = new Set(outcomes.keys());
  const fresh = requests.filter((r) => !seen.has(r.requestId) && seen.add(r.requestId));
  if (fresh.length === 0) return outcomes;

  const { built, balancesApplied, headsApplied } = await readAndBuild(store, session, fresh, hints);
  try {
    await commands.insert(c.ledger, built.entries, session);
  } catch (err) {
    if (check === 'on-conflict' && err instanceof BatchWriteError && err.code === DUPLICATE_KEY) throw new AlreadyCharged();
    throw err;
  }
  if (!headsApplied) await commands.update(c.accounts, built.totals.accountUpdates(built.heads, balancesApplied), session);
  await commands.update(c.keySpend, built.totals.spendUpdates(), session);
  for (const [id, outcome] of built.outcomes) outcomes.set(id, outcome);
  return outcomes;
}
