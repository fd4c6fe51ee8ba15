import type { CatalogModel } from '../../catalog/index.js';
import type { ChargeOutcome } from '../ledger-writer.js';
import { buildReceipt } from '../receipts/build-receipt.js';
import type { SignedReceipt } from '../receipts/receipt-types.js';
import type { TokenSource } from '../../billing/index.js';
import type { RecordReceiptFacts, RequestRecordDoc } from './request-record-types.js';

/** What the recorder knows of a charged request when it writes the record. */
export interface ChargedRequest {
  /** The catalog entry billed. */
  readonly model: Pick<CatalogModel, 'id' | 'priceVersion'>;
  readonly charge: ChargeOutcome;
  readonly tokenSource: TokenSource;
  readonly failure: string | undefined;
  readonly settledAt: Date;
}

/**
 * The receipt facts a record keeps beside its own fields (see {@link RecordReceiptFacts}):
 * what the record already states (lines, cost, status, ids) is not repeated.
 */
export function receiptFacts(record: Pick<RequestRecordDoc, 'model' | 'price_version'>, charged: ChargedRequest): RecordReceiptFacts {
  const priceVersion = charged.charge.priceVersion ?? charged.model.priceVersion;
  return {
    ...(charged.model.id !== record.model ? { model: charged.model.id } : {}),
    ...(priceVersion !== record.price_version ? { price_version: priceVersion } : {}),
    charged: charged.charge.charged,
    absorbed: charged.charge.absorbed,
    token_source: charged.tokenSource,
    ...(charged.failure !== undefined ? { failure: charged.failure } : {}),
    settled_at: charged.settledAt,
    prev_hash: charged.charge.prevHash ?? null,
    hash: charged.charge.hash ?? null,
  };
}

/** The fields of a record its receipt is built from (a projection reads only these). */
export const RECEIPT_FIELDS = ['account_id', 'key_id', 'endpoint', 'model', 'provider', 'status', 'cost', 'cost_details', 'price_version', 'receipt_facts', 'receipt'] as const;

/** A record as far as its receipt reads it. */
export type ReceiptRecord = Pick<RequestRecordDoc, '_id' | (typeof RECEIPT_FIELDS)[number]>;

/**
 * A record's receipt, unsigned: its exact JSON text, built from the record's fields and its
 * receipt facts (records written before those hold the text, or the signed receipt, as it
 * is). Undefined when the request was not charged.
 */
export function storedReceipt(record: ReceiptRecord): string | SignedReceipt | undefined {
  if (record.receipt !== undefined) return record.receipt;
  const facts = record.receipt_facts;
  if (facts === undefined) return undefined;
  const receipt = buildReceipt({
    requestId: record._id,
    accountId: record.account_id,
    keyId: record.key_id,
    model: { id: facts.model ?? record.model ?? '', priceVersion: facts.price_version ?? record.price_version ?? '' },
    endpoint: record.endpoint,
    provider: record.provider,
    charge: {
      cost: record.cost,
      charged: facts.charged,
      absorbed: facts.absorbed,
      ...(record.cost_details !== undefined ? { lines: record.cost_details } : {}),
      ...(facts.prev_hash !== null ? { prevHash: facts.prev_hash } : {}),
      ...(facts.hash !== null ? { hash: facts.hash } : {}),
    },
    tokenSource: facts.token_source,
    status: record.status,
    failure: facts.failure,
    settledAt: facts.settled_at,
  });
  return JSON.stringify(receipt);
}
