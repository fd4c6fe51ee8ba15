import type { Collection, Db } from 'mongodb';
import type { RequestRecordDoc } from './request-record-types.js';

/** Days request records are kept when the setting is not given. */
export const DEFAULT_RECORD_RETENTION_DAYS = 30;

const TTL_INDEX = 'created_at_ttl';

/**
 * The TTL index that expires records, with the configured lifetime. An existing index with
 * another lifetime is changed in place (collMod), so a new setting takes effect on the next
 * release without rebuilding anything.
 */
async function ensureTtl(db: Db, records: Collection<RequestRecordDoc>, seconds: number): Promise<void> {
  const existing = (await records.listIndexes().toArray()).find((i) => i.name === TTL_INDEX);
  if (existing === undefined) {
    await records.createIndex({ created_at: -1 }, { name: TTL_INDEX, expireAfterSeconds: seconds });
  } else if (existing.expireAfterSeconds !== seconds) {
    await db.command({ collMod: records.collectionName, index: { name: TTL_INDEX, expireAfterSeconds: seconds } });
  }
}

/**
 * Indexes of the request records: expiry, the newest-first order of unfiltered operator lists
 * (a TTL index must be single-field, so it cannot carry the id tie-break), and one per list
 * filter, each ending in that same order so a page never sorts in memory.
 */
export async function ensureRecordIndexes(db: Db, records: Collection<RequestRecordDoc>, retentionDays: number): Promise<void> {
  await ensureTtl(db, records, retentionDays * 86_400);
  await records.createIndex({ created_at: -1, _id: -1 });
  await records.createIndex({ account_id: 1, created_at: -1, _id: -1 });
  await records.createIndex({ key_id: 1, created_at: -1, _id: -1 });
  await records.createIndex({ model: 1, created_at: -1, _id: -1 });
  await records.createIndex({ account_id: 1, end_user: 1, created_at: -1, _id: -1 });
}
