import type { Collection, Db } from 'mongodb';
import type { AccountDoc } from '../accounts/account-types.js';
import type { KeyDoc, KeySpendDoc } from '../keys/key-types.js';
import type { ModelDoc } from '../catalog/model-types.js';
import type { LedgerDoc } from '../ledger/ledger-types.js';
import { DEFAULT_RECORD_RETENTION_DAYS, ensureRecordIndexes } from '../requests/record-indexes.js';
import type { RequestRecordDoc } from '../requests/request-record-types.js';

/** Typed handles on every collection; the names live here only. */
export interface Collections {
  accounts: Collection<AccountDoc>;
  keys: Collection<KeyDoc>;
  keySpend: Collection<KeySpendDoc>;
  models: Collection<ModelDoc>;
  ledger: Collection<LedgerDoc>;
  requestRecords: Collection<RequestRecordDoc>;
}

/** Returns typed collection handles for a database. */
export function collections(db: Db): Collections {
  return {
    accounts: db.collection<AccountDoc>('accounts'),
    keys: db.collection<KeyDoc>('keys'),
    keySpend: db.collection<KeySpendDoc>('key_spend'),
    models: db.collection<ModelDoc>('models'),
    ledger: db.collection<LedgerDoc>('ledger'),
    requestRecords: db.collection<RequestRecordDoc>('request_records'),
  };
}

/** Settings that shape indexes. */
export interface IndexOptions {
  /** Days request records are kept (TTL index). */
  requestRecordRetentionDays?: number;
}

/**
 * Creates the collections and the indexes the gateway relies on (idempotent; run by the
 * release step). One at a time on purpose: creating the same new collection from concurrent
 * operations crashes some mongod builds (seen with 7.0 under Wine), and this is not a hot path.
 */
export async function ensureIndexes(db: Db, options: IndexOptions = {}): Promise<void> {
  const c = collections(db);
  const existing = new Set((await db.listCollections({}, { nameOnly: true }).toArray()).map((x) => x.name));
  for (const { collectionName } of Object.values(c)) if (!existing.has(collectionName)) await db.createCollection(collectionName);
  // Operator account listing pages newest first.
  await c.accounts.createIndex({ created_at: -1, _id: -1 });
  await c.keys.createIndex({ hash: 1 }, { unique: true });
  await c.keys.createIndex({ account_id: 1, created_at: -1 });
  await c.ledger.createIndex({ account_id: 1, created_at: -1, _id: -1 });
  await c.keySpend.createIndex({ expires_at: 1 }, { expireAfterSeconds: 0 });
  await ensureRecordIndexes(db, c.requestRecords, options.requestRecordRetentionDays ?? DEFAULT_RECORD_RETENTION_DAYS);
}
