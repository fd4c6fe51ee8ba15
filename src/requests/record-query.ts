import type { Collection, Filter } from 'mongodb';
import { GatewayError } from '../errors/gateway-error.js';
import { createdWithin, type RecordFilters } from './record-filters.js';
import type { RequestRecordDoc } from './request-record-types.js';

/** A page of records, newest first. */
export interface RecordPage {
  records: RequestRecordDoc[];
  nextCursor: string | null;
}

function encodeCursor(r: RequestRecordDoc): string {
  return Buffer.from(JSON.stringify([r.created_at.getTime(), r._id])).toString('base64url');
}

function decodeCursor(cursor: string): [Date, string] {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(value) && Number.isSafeInteger(value[0]) && typeof value[1] === 'string') return [new Date(value[0] as number), value[1]];
  } catch {
    // fall through to the error below
  }
  throw new GatewayError('invalid_request', 'cursor is not valid', { param: 'cursor' });
}

/** The MongoDB filter of a set of record filters (no cursor). */
export function recordFilter(f: RecordFilters): Filter<RequestRecordDoc> {
  const filter: Filter<RequestRecordDoc> = { ...createdWithin(f) };
  if (f.accountId !== undefined) filter.account_id = f.accountId;
  if (f.keyId !== undefined) filter.key_id = f.keyId;
  if (f.model !== undefined) filter.model = f.model;
  return filter;
}

/** Newest first, ties broken by id: the order of every list and export. */
export const NEWEST_FIRST = { created_at: -1, _id: -1 } as const;

/** One record by request id, only within an account when one is given. */
export function findRecord(records: Collection<RequestRecordDoc>, requestId: string, accountId?: string): Promise<RequestRecordDoc | null> {
  return records.findOne(accountId === undefined ? { _id: requestId } : { _id: requestId, account_id: accountId });
}

/** Lists records with an opaque keyset cursor (created_at + id), stable under new writes. */
export async function listRecords(records: Collection<RequestRecordDoc>, f: RecordFilters, limit: number, cursor?: string): Promise<RecordPage> {
  const filter = recordFilter(f);
  if (cursor !== undefined) {
    const [at, id] = decodeCursor(cursor);
    filter.$or = [{ created_at: { $lt: at } }, { created_at: at, _id: { $lt: id } }];
  }
  const docs = await records.find(filter).sort(NEWEST_FIRST).limit(limit + 1).toArray();
  const page = docs.slice(0, limit);
  const last = page.at(-1);
  return { records: page, nextCursor: docs.length > limit && last ? encodeCursor(last) : null };
}
