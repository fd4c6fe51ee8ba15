import type { Db } from 'mongodb';
import {
  accountCollections,
  type AccountCollections,
  ensureAccountIndexes,
  ensureKeyIndexes,
  keyCollections,
  type KeyCollections,
} from '../accounts/index.js';
import { ensureIdempotencyIndexes, idempotencyCollections, type IdempotencyCollections } from '../platform/idempotency/index.js';
import { modelCollections, type ModelCollections } from '../catalog/index.js';
import {
  DEFAULT_RECORD_RETENTION_DAYS,
  ensureLedgerIndexes,
  ensureRecordIndexes,
  ledgerCollections,
  type LedgerCollections,
  recordCollections,
  type RecordCollections,
} from '../ledger/index.js';
import { ensureWebhookIndexes, webhookCollections, type WebhookCollections } from '../webhooks/index.js';

/**
 * Typed handles on every collection, each domain's own put together. A module takes only the
 * part it uses (`KeyCollections`, `LedgerCollections`, ...), so domains never import this file.
 */
export type Collections = AccountCollections & KeyCollections & ModelCollections & LedgerCollections & RecordCollections & IdempotencyCollections & WebhookCollections;

/** Returns typed collection handles for a database. */
export function collections(db: Db): Collections {
  return { ...accountCollections(db), ...keyCollections(db), ...modelCollections(db), ...ledgerCollections(db), ...recordCollections(db), ...idempotencyCollections(db), ...webhookCollections(db) };
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
  // A set: some handles share a collection (accounts and their spend buckets).
  for (const name of new Set(Object.values(c).map((x) => x.collectionName))) if (!existing.has(name)) await db.createCollection(name);
  await ensureAccountIndexes(c);
  await ensureKeyIndexes(c);
  await ensureLedgerIndexes(c);
  await ensureIdempotencyIndexes(c);
  await ensureWebhookIndexes(c);
  await ensureRecordIndexes(db, c.requestRecords, options.requestRecordRetentionDays ?? DEFAULT_RECORD_RETENTION_DAYS);
}
