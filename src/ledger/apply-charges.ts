import type { ClientSession, Document } from 'mongodb';
import type { AccountCollections, AccountDoc } from '../accounts/index.js';
import { type CostLineWire, maxBig, minBig } from '../billing/index.js';
import { type BatchCommands, BatchWriteError, type UpdateStatement } from './batch-commands.js';
import { BalanceTotals, spendStatements } from './batch-totals.js';
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
  readonly c: AccountCollections & LedgerCollections;
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
 * Up to this many accounts in a batch, the account's balance is updated on its own (see
 * `readAndBuild`); beyond it, one find and one update command (two round trips) serve all
 * accounts. Most batches of a busy gateway charge one account.
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
 * exactly the sum the charges take one by one; the rest is absorbed.
 */
function floorUpdate(total: bigint, overLimit: bigint): Document[] {
  const taken = { $min: [total, { $max: ['$balance', 0n] }] };
  return [
    {
      $set: {
        balance: { $subtract: ['$balance', taken] },
        charged: { $add: [{ $ifNull: ['$charged', 0n] }, taken] },
        // Metered cost beyond the holds is absorbed too: it never reached the balance.
        absorbed: { $add: [{ $ifNull: ['$absorbed', 0n] }, { $subtract: [total, taken] }, overLimit] },
      },
    },
  ];
}

/**
 * The balance and chain head of one account charged `total`, applied only when its premises
 * hold: the head is the one this process committed last, and the balance covers the batch.
 */
function guessedUpdate(id: string, total: bigint, overLimit: bigint, prev: ChainHead, head: ChainHead): UpdateStatement {
  return {
    q: { _id: id, 'ledger_head.hash': prev.hash, balance: { $gte: total } },
    u: { $inc: { balance: -total, charged: total, absorbed: overLimit }, $set: { ledger_head: head } },
  };
}

/** A batch's entries, outcomes and balance totals, computed from the balances and heads before it. */
interface Built {
  entries: LedgerDoc[];
  outcomes: Map<string, ChargeOutcome>;
  totals: BalanceTotals;
  heads: Map<string, ChainHead>;
}

function build(fresh: readonly ChargeRequest[], balancesBefore: ReadonlyMap<string, bigint>, headsBefore: ReadonlyMap<string, ChainHead | undefined>): Built {
  const balances = new Map(balancesBefore);
  const built: Built = { entries: [], outcomes: new Map(), totals: new BalanceTotals(), heads: new Map() };
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
    built.totals.add(r.accountId, charged, absorbed + (r.overLimit ?? 0n));
  }
  return built;
}

type AccountRead = Pick<AccountDoc, '_id' | 'balance' | 'ledger_head'>;
const PROJECTION = { balance: 1, ledger_head: 1 };

/** A built batch, and which of its account and spend writes are already applied. */
interface Prepared {
  built: Built;
  balancesApplied: boolean;
  headsApplied: boolean;
  spendApplied: boolean;
}

/**
 * Reads the accounts of a batch and builds it. Within the transaction each account document is
 * read and written, so a concurrent writer of the same account (another process, a top-up)
 * conflicts and retries: the chain cannot fork.
 *
 * One account whose head this process committed last (the common case of a busy gateway): one
 * `update` command applies the balance and the new head, conditional on that head and on a
 * balance covering the batch, together with the spend buckets, which live in the same
 * collection for this reason. When a premise fails, one findAndModify applies the balance and
 * reads what the batch is built from. More accounts: one find, and the balances and heads go in
 * one update command later.
 */
async function readAndBuild({ c, commands }: ChargeStore, session: ClientSession, fresh: readonly ChargeRequest[], hints: HeadHints | undefined): Promise<Prepared> {
  const costs = new Map<string, bigint>();
  let overLimit = 0n;
  for (const r of fresh) {
    costs.set(r.accountId, (costs.get(r.accountId) ?? 0n) + r.cost);
    overLimit += r.overLimit ?? 0n;
  }
  if (costs.size > UPDATE_EACH_ACCOUNT_UP_TO) {
    const accounts = (await c.accounts.find({ _id: { $in: [...costs.keys()] } }, { session, projection: PROJECTION }).toArray()) as AccountRead[];
    const built = build(fresh, new Map(accounts.map((a) => [a._id, a.balance])), new Map(accounts.map((a) => [a._id, a.ledger_head])));
    return { built, balancesApplied: false, headsApplied: false, spendApplied: false };
  }
  const [[id, total]] = [...costs] as [[string, bigint]];
  const hint = hints?.get(id);
  let spendApplied = false;
  if (hint) {
    // Built as if the balance covers the batch, after the hinted head.
    const guess = build(fresh, new Map([[id, total]]), new Map([[id, hint]]));
    const statements = [guessedUpdate(id, total, overLimit, hint, guess.heads.get(id) as ChainHead), ...spendStatements(fresh)];
    // Every spend statement matches or upserts its bucket: the count is whole only if the account matched.
    if ((await commands.update(c.accounts, statements, session)) === statements.length) return { built: guess, balancesApplied: true, headsApplied: true, spendApplied: true };
    spendApplied = true;
  }
  const before = (await commands.findAndModify(c.accounts, { _id: id }, floorUpdate(total, overLimit), PROJECTION, session)) as AccountRead | null;
  if (!before) throw new Error(`charge for unknown account ${id}`);
  return { built: build(fresh, new Map([[id, before.balance]]), new Map([[id, before.ledger_head]])), balancesApplied: true, headsApplied: false, spendApplied };
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

  const { built, balancesApplied, headsApplied, spendApplied } = await readAndBuild(store, session, fresh, hints);
  try {
    await commands.insert(c.ledger, built.entries, session);
  } catch (err) {
    if (check === 'on-conflict' && err instanceof BatchWriteError && err.code === DUPLICATE_KEY) throw new AlreadyCharged();
    throw err;
  }
  // Accounts and spend buckets share a collection, so what is left of them is one command.
  const accounts = headsApplied ? [] : built.totals.accountUpdates(built.heads, balancesApplied);
  await commands.update(c.accounts, spendApplied ? accounts : [...accounts, ...spendStatements(fresh)], session);
  for (const [id, outcome] of built.outcomes) outcomes.set(id, outcome);
  return outcomes;
}
