import { Readable } from 'node:stream';
import type { Collection } from 'mongodb';
import { createdWithin, type TimeRange } from './record-filters.js';
import { LEDGER_FACT_FIELDS, type LedgerFacts, needsLedgerFacts, RECEIPT_FIELDS, type ReceiptRecord, storedReceipt } from './record-receipt.js';
import type { LedgerDoc } from '../ledger-types.js';
import type { RequestRecordDoc } from './request-record-types.js';
import type { ReceiptSigner } from '../receipts/receipt-signer.js';
import type { SignedReceipt } from '../receipts/receipt-types.js';

/** Signs a receipt text (see `storedReceipt`); one stored already signed is kept as it is. */
export function signStoredReceipt(stored: string | SignedReceipt, signer: Pick<ReceiptSigner, 'signText'>): SignedReceipt {
  return typeof stored === 'string' ? signer.signText(stored) : stored;
}

/** A signed receipt as the API shows it: the signed fields plus the payload parsed. */
export function toReceiptView(signed: SignedReceipt) {
  return { ...signed, receipt: JSON.parse(signed.payload) as unknown };
}

/**
 * A record's receipt text (see `storedReceipt`), reading its ledger entry only when the record
 * predates the commit (see `needsLedgerFacts`).
 */
export async function receiptOf(ledger: Collection<LedgerDoc>, record: ReceiptRecord): Promise<string | SignedReceipt | undefined> {
  const entry = needsLedgerFacts(record) ? await ledger.findOne<LedgerFacts>({ _id: record._id }, { projection: LEDGER_FACT_FIELDS }) : undefined;
  return storedReceipt(record, entry);
}

/**
 * Every receipt of an account in a time range as JSON lines (one signed receipt per line,
 * oldest first), streamed from a cursor so an export of any size holds one record at a time.
 */
export function receiptLines(
  records: Collection<RequestRecordDoc>,
  ledger: Collection<LedgerDoc>,
  signer: Pick<ReceiptSigner, 'signText'>,
  accountId: string,
  range: TimeRange,
  onError: (err: Error) => void,
): Readable {
  const cursor = records
    .find(
      { account_id: accountId, $or: [{ receipt_facts: { $exists: true } }, { receipt: { $exists: true } }], ...createdWithin(range) },
      { projection: Object.fromEntries(RECEIPT_FIELDS.map((field) => [field, 1])) },
    )
    .sort({ created_at: 1, _id: 1 });
  async function* lines(): AsyncGenerator<string> {
    for await (const doc of cursor) {
      const stored = await receiptOf(ledger, doc);
      if (stored) yield `${JSON.stringify(toReceiptView(signStoredReceipt(stored, signer)))}\n`;
    }
  }
  const stream = Readable.from(lines());
  stream.on('error', onError);
  return stream;
}
