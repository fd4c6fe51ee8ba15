import type { Collection, Filter } from 'mongodb';
import { keysetPage } from '../../platform/db/index.js';
import { createdWithin, type RecordFilters } from './record-filters.js';
import type { RequestRecordDoc } from './request-record-types.js';

/** A page of records, newest first. */
export interface RecordPage {
  records: RequestRecordDoc[];
  nextCursor: string | null;
}

/** The MongoDB filter of a set of record filters (no cursor). */
export function recordFilter(f: RecordFilters): Filter<RequestRecordDoc> {
  const filter: Filter<RequestRecordDoc> = { ...createdWithin(f) };
  if (f.accountId !== undefined) filter.account_id = f.accountId;
  if (f.keyId !== undefined) filter.key_id = f.keyId;
  if (f.model !== undefined) filter.model = f.model;
  if (f.endUser !== undefined) filter.end_user = f.endUser;
  return filter;
}

/** One record by request id, only within an account when one is given. */
export function findRecord(records: Collection<RequestRecordDoc>, requestId: string, accountId?: string): Promise<RequestRecordDoc | null> {
  return records.findOne(accountId === undefined ? { _id: requestId } : { _id: requestId, account_id: accountId });
}

/** Lists records with an opaque keyset cursor (created_at + id), stable under new writes. */
export async function listRecords(records: Collection<RequestRecordDoc>, f: RecordFilters, limit: number, cursor?: string): Promise<RecordPage> {
  const page = await keysetPage(records, recordFilter(f), limit, cursor);
  return { records: page.items, nextCursor: page.nextCursor };
}
