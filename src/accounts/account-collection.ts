import type { Collection, Db } from 'mongodb';
import type { AccountDoc } from './account-types.js';

/** The accounts collection, as the modules that read or write accounts take it. */
export interface AccountCollections {
  readonly accounts: Collection<AccountDoc>;
}

/**
 * The name of the accounts collection (it lives here only). It holds the spend buckets too
 * (see `KeyCollections.keySpend`), so a ledger batch writes a balance and its spend in one
 * command; readers of accounts as a set filter with {@link ONLY_ACCOUNTS}.
 */
export const ACCOUNTS_COLLECTION = 'accounts';

/** Matches account documents and no spend bucket: only accounts have a creation date. */
export const ONLY_ACCOUNTS = { created_at: { $exists: true } } as const;

/** Finds the account of an id a caller gave, never a spend bucket of that id. */
export function accountById(id: string): { _id: string; created_at: { $exists: true } } {
  return { _id: id, ...ONLY_ACCOUNTS };
}

/** The accounts collection of a database. */
export function accountCollections(db: Db): AccountCollections {
  return { accounts: db.collection<AccountDoc>(ACCOUNTS_COLLECTION) };
}

/** Indexes of the accounts: operator listing pages newest first. */
export async function ensureAccountIndexes(c: AccountCollections): Promise<void> {
  await c.accounts.createIndex({ created_at: -1, _id: -1 });
}
