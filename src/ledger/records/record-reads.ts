import type { Readable } from 'node:stream';
import type { LedgerCollections } from '../ledger-collection.js';
import type { ReceiptSigner } from '../receipts/receipt-signer.js';
import { recordsCsv } from './csv-export.js';
import { usageOfEndUser } from './end-user-usage.js';
import type { RecordCollections } from './record-collection.js';
import type { RecordFilters, TimeRange } from './record-filters.js';
import { findRecord, listRecords } from './record-query.js';
import { receiptLines, receiptOf } from './receipt-export.js';
import type { SignedReceipt } from '../receipts/receipt-types.js';
import { usageByDay, type UsageRow } from './usage-query.js';

/**
 * The read side of request records and usage, as routes see it: lookups, pages, exports and
 * per-day usage. Routes get this rather than the collections, so every query has one home.
 */
export class RecordReads {
  constructor(private readonly c: RecordCollections & LedgerCollections) {}

  /** One record by request id (within one account when `accountId` is given). */
  find(requestId: string, accountId?: string) {
    return findRecord(this.c.requestRecords, requestId, accountId);
  }

  /** A page of records, newest first. */
  list(filters: RecordFilters, limit: number, cursor?: string) {
    return listRecords(this.c.requestRecords, filters, limit, cursor);
  }

  /** Every matching record as CSV. */
  csv(filters: RecordFilters, onError: (err: Error) => void): Readable {
    return recordsCsv(this.c, filters, onError);
  }

  /** Every signed receipt of an account in a range, as JSON lines. */
  receipts(signer: Pick<ReceiptSigner, 'signText'>, accountId: string, range: TimeRange, onError: (err: Error) => void): Readable {
    return receiptLines(this.c.requestRecords, this.c.ledger, signer, accountId, range, onError);
  }

  /** One request's receipt text (within one account), or undefined when it was not charged. */
  async receipt(requestId: string, accountId: string): Promise<string | SignedReceipt | undefined> {
    const record = await this.find(requestId, accountId);
    return record === null ? undefined : receiptOf(this.c.ledger, record);
  }

  /**
   * Usage per UTC day and model, from the ledger; for one end user from the charged records,
   * since ledger entries do not name end users.
   */
  usage(range: TimeRange, accountId?: string, endUser?: string): Promise<UsageRow[]> {
    return endUser === undefined ? usageByDay(this.c, range, accountId) : usageOfEndUser(this.c, range, endUser, accountId);
  }
}
