import type { Filter } from 'mongodb';
import type { Collections } from '../db/collections.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { LedgerDoc } from './ledger-types.js';

/** A page of ledger entries, newest first. */
export interface LedgerPage {
  entries: LedgerDoc[];
  nextCursor: string | null;
}

function encodeCursor(entry: LedgerDoc): string {
  return Buffer.from(JSON.stringify([entry.created_at.getTime(), entry._id])).toString('base64url');
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

/** Lists an account's ledger with an opaque keyset cursor (stable under concurrent writes). */
export async function listLedger(c: Collections, accountId: string, limit: number, cursor?: string): Promise<LedgerPage> {
  const filter: Filter<LedgerDoc> = { account_id: accountId };
  if (cursor) {
    const [ms, id] = decodeCursor(cursor);
    const at = new Date(ms);
    filter.$or = [{ created_at: { $lt: at } }, { created_at: at, _id: { $lt: id } }];
  }
  const docs = await c.ledger.find(filter).sort({ created_at: -1, _id: -1 }).limit(limit + 1).toArray();
  const entries = docs.slice(0, limit);
  const last = entries.at(-1);
  return { entries, nextCursor: docs.length > limit && last ? encodeCursor(last) : null };
}

/** Sums an account's ledger: what the balance must equal (credits − charged). */
export async function ledgerBalance(c: Collections, accountId: string): Promise<bigint> {
  let total = 0n;
  for await (const e of c.ledger.find({ account_id: accountId }, { projection: { credit: 1, charged: 1 } })) {
    total += e.credit - e.charged;
  }
  return total;
}
