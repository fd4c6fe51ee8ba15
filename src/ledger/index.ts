/**
 * The ledger of record: charges, credits, the spool, request records and receipts.
 * This file is the module's face: code outside the module imports from here only.
 */
export type { ChargeOutcome, ChargeRequest } from './apply-charges.js';
export { ChargeSpool } from './charge-spool.js';
export { ensureLedgerIndexes, ledgerCollections, type LedgerCollections } from './ledger-collection.js';
export { LedgerCredits } from './ledger-credits.js';
export { type LedgerBatch, type LedgerWriterObserver, observeAll } from './ledger-observer.js';
export { LedgerReads } from './ledger-reads.js';
export type { LedgerDoc } from './ledger-types.js';
export { toLedgerView } from './ledger-view.js';
export { LedgerWriter } from './ledger-writer.js';
export { buildReceipt } from './receipts/build-receipt.js';
export { generateSigningKey, newSigningKeyPem } from './receipts/receipt-keys.js';
export { createReceiptSigner } from './receipts/receipt-setup.js';
export { ReceiptSigner } from './receipts/receipt-signer.js';
export { END_USER_HEADER, endUserOf } from './records/end-user-source.js';
export { signStoredReceipt, toReceiptView } from './records/receipt-export.js';
export { recordCollections, type RecordCollections } from './records/record-collection.js';
export { type DraftLookup, type RecordDraft, usageOf } from './records/record-draft.js';
export { DEFAULT_RECORD_RETENTION_DAYS, ensureRecordIndexes } from './records/record-indexes.js';
export { RecordReads } from './records/record-reads.js';
export { storedReceipt } from './records/record-receipt.js';
export { toRecordView } from './records/record-view.js';
export { RecordWriter } from './records/record-writer.js';
export type { OutcomeObserver, RequestOutcome } from './records/request-outcome.js';
export type { AttemptRecord } from './records/request-record-types.js';
export { RequestRecorder } from './records/request-recorder.js';
export { SpoolBeacon } from './spool-beacon.js';
export { chargesUnavailable, SpoolingLedger } from './spooling-ledger.js';
