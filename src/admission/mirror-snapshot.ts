import type { MongoClient } from 'mongodb';
import { bucketOwner, type MirrorName, spendMirror } from '../billing/index.js';
import { type AccountCollections, type KeyCollections, lifetimeSpend, periodSpend } from '../accounts/index.js';
import type { LedgerCollections } from '../ledger/index.js';

export type { MirrorName } from '../billing/index.js';

/** MongoDB figures and the charges they contain, read at one point in time. */
export interface MirrorSnapshot {
  readonly figures: ReadonlyMap<MirrorName, bigint>;
  /** The account's chain head: the figures contain exactly its charges at positions up to here. */
  readonly head: number;
  /** Ids of the checked charges that exist, plus, when a window was asked for, the account's charges since its start. */
  readonly chargeIds: readonly string[];
}

/** What to read: the mirrors, whose they are, and which charges to report. */
export interface SnapshotQuery {
  readonly names: readonly MirrorName[];
  readonly accountId: string;
  readonly keyId: string;
  /** The end user's tag, for the end-user mirrors. */
  readonly endUser?: string | undefined;
  /** Decides the day, week and month spend periods. */
  readonly at: Date;
  /** Charges created from here on are listed; none when absent. */
  readonly since?: Date | undefined;
  /** Further request ids to look up whatever their age. */
  readonly checkIds: readonly string[];
}

/**
 * Reads mirror figures together with the account's chain head and the ids of the charges asked
 * about, in one snapshot transaction: a charge is either in the figures and at or below the
 * head (and among the ids, if asked about), or in none of them.
 */
export async function readMirrorSnapshot(client: MongoClient, c: AccountCollections & KeyCollections & LedgerCollections, q: SnapshotQuery): Promise<MirrorSnapshot> {
  const session = client.startSession();
  try {
    // A plain read-only transaction, not withTransaction: no retry loop that could stall
    // admission for long while MongoDB is unreachable (the caller fails and retries instead).
    session.startTransaction({ readConcern: { level: 'snapshot' } });
    // The account's balance and chain head, in one read.
    const account = await c.accounts.findOne({ _id: q.accountId }, { session, projection: { balance: 1, ledger_head: 1 } });
    const figures = new Map<MirrorName, bigint>();
    for (const name of q.names) figures.set(name, name === 'balance' ? (account?.balance ?? 0n) : await readSpend(c, name, q, session));
    const asked = [...(q.since ? [{ created_at: { $gte: q.since } }] : []), ...(q.checkIds.length > 0 ? [{ _id: { $in: [...q.checkIds] } }] : [])];
    const docs = asked.length === 0 ? [] : await c.ledger.find({ account_id: q.accountId, kind: 'charge', $or: asked }, { session, projection: { _id: 1 } }).toArray();
    await session.commitTransaction();
    return { figures, head: account?.ledger_head?.seq ?? 0, chargeIds: docs.map((d) => d._id) };
  } finally {
    if (session.inTransaction()) await session.abortTransaction().catch(() => undefined);
    await session.endSession();
  }
}

type Session = ReturnType<MongoClient['startSession']>;

/** A spend mirror's figure (the balance is read with the account). */
async function readSpend(c: AccountCollections & KeyCollections & LedgerCollections, name: Exclude<MirrorName, 'balance'>, q: SnapshotQuery, session: Session): Promise<bigint> {
  if (name === 'lifetime') {
    const key = await c.keys.findOne({ _id: q.keyId }, { session, projection: { spend: 1 } });
    return key ? ((await lifetimeSpend(c, [key], session)).get(key._id) ?? 0n) : 0n;
  }
  const m = spendMirror(name);
  if (!m || m.window === 'lifetime') throw new Error(`no MongoDB figure for mirror ${name}`);
  return (await periodSpend(c, bucketOwner(m.scope, q), q.at, session))[m.window];
}
