import type { Collection, Db } from 'mongodb';
import type { AccountDoc } from './account-types.js';

/** The accounts collection, as the modules that read or write accounts take it. */
export interface AccountCollections {
  readonly accounts: Collection<AccountDoc>;
}

/** The accounts collection of a database (its name lives here only). */
export function accountCollections(db: Db): AccountCollections {
  return { accounts: db.collection<AccountDoc>('accounts') };
}

/** Indexes of the accounts: operator listing pages newest first. */
export async function ensureAccountIndexes(c: AccountCollections): Promise<void> {
  await c.accounts.createIndex({ created_at: -1, _id: -1 });
}
