import type { Collection, Db } from 'mongodb';
import type { LedgerDoc } from './ledger-types.js';

/** The ledger collection, as the modules that charge or read charges take it. */
export interface LedgerCollections {
  readonly ledger: Collection<LedgerDoc>;
}

/** The ledger collection of a database (its name lives here only). */
export function ledgerCollections(db: Db): LedgerCollections {
  return { ledger: db.collection<LedgerDoc>('ledger') };
}

/**
 * Indexes of the ledger: an account's entries newest first. No index on the chain's `seq`:
 * every insert would maintain it (measured: it halved the writer's charges/s), while the
 * account's head, read and written in each entry's transaction, already keeps the chain
 * linear; verifying sorts on disk instead.
 */
export async function ensureLedgerIndexes(c: LedgerCollections): Promise<void> {
  await c.ledger.createIndex({ account_id: 1, created_at: -1, _id: -1 });
}
