import type { Filter } from 'mongodb';
import { keysetPage } from '../platform/db/index.js';
import type { AccountDoc } from './account-types.js';
import { type AccountCollections, ONLY_ACCOUNTS } from './account-collection.js';

/** A page of accounts, newest first. */
export interface AccountPage {
  accounts: AccountDoc[];
  nextCursor: string | null;
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Lists accounts with an opaque keyset cursor. `q` matches an exact account id or a
 * case-insensitive part of the name (taken literally, never as a pattern).
 */
export async function listAccounts(c: AccountCollections, limit: number, cursor?: string, q?: string): Promise<AccountPage> {
  const filter: Filter<AccountDoc> = q ? { ...ONLY_ACCOUNTS, $or: [{ _id: q }, { name: { $regex: escapeRegex(q), $options: 'i' } }] } : ONLY_ACCOUNTS;
  const page = await keysetPage(c.accounts, filter, limit, cursor);
  return { accounts: page.items, nextCursor: page.nextCursor };
}
