import type { Filter } from 'mongodb';
import type { Collections } from '../db/collections.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { AccountDoc } from './account-types.js';

/** A page of accounts, newest first. */
export interface AccountPage {
  accounts: AccountDoc[];
  nextCursor: string | null;
}

function encodeCursor(account: AccountDoc): string {
  return Buffer.from(JSON.stringify([account.created_at.getTime(), account._id])).toString('base64url');
}

function decodeCursor(cursor: string): [number, string] {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(value) && typeof value[0] === 'number' && typeof value[1] === 'string') return [value[0], value[1]];
  } catch {
    // fall through to the error below
  }
  throw new GatewayError('invalid_request', 'cursor is not valid', { param: 'cursor' });
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Lists accounts with an opaque keyset cursor. `q` matches an exact account id or a
 * case-insensitive part of the name (taken literally, never as a pattern).
 */
export async function listAccounts(c: Collections, limit: number, cursor?: string, q?: string): Promise<AccountPage> {
  const clauses: Filter<AccountDoc>[] = [];
  if (q) clauses.push({ $or: [{ _id: q }, { name: { $regex: escapeRegex(q), $options: 'i' } }] });
  if (cursor) {
    const [ms, id] = decodeCursor(cursor);
    const at = new Date(ms);
    clauses.push({ $or: [{ created_at: { $lt: at } }, { created_at: at, _id: { $lt: id } }] });
  }
  const filter: Filter<AccountDoc> = clauses.length ? { $and: clauses } : {};
  const docs = await c.accounts.find(filter).sort({ created_at: -1, _id: -1 }).limit(limit + 1).toArray();
  const accounts = docs.slice(0, limit);
  const last = accounts.at(-1);
  return { accounts, nextCursor: docs.length > limit && last ? encodeCursor(last) : null };
}
