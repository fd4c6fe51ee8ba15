import type { Collection, Db } from 'mongodb';
import { ACCOUNTS_COLLECTION } from '../account-collection.js';
import type { KeyDoc, KeySpendDoc } from './key-types.js';

/** The keys and their spend buckets, as the modules that read or write keys take them. */
export interface KeyCollections {
  readonly keys: Collection<KeyDoc>;
  /**
   * Spend buckets (`<owner>:<period>`), kept in the accounts collection: a ledger batch then
   * writes an account's balance and the spend of its charges in one command.
   */
  readonly keySpend: Collection<KeySpendDoc>;
}

/** The key collections of a database (the keys' name lives here only). */
export function keyCollections(db: Db): KeyCollections {
  return { keys: db.collection<KeyDoc>('keys'), keySpend: db.collection<KeySpendDoc>(ACCOUNTS_COLLECTION) };
}

/** Indexes of the keys (lookup by hash, listing per account) and the expiry of spend buckets. */
export async function ensureKeyIndexes(c: KeyCollections): Promise<void> {
  await c.keys.createIndex({ hash: 1 }, { unique: true });
  await c.keys.createIndex({ account_id: 1, created_at: -1 });
  await c.keySpend.createIndex({ expires_at: 1 }, { expireAfterSeconds: 0 });
}
