import type { CatalogModel } from '../../catalog/index.js';
import type { ChargeOutcome } from '../ledger-writer.js';
import { buildReceipt } from '../receipts/build-receipt.js';
import type { SignedReceipt } from '../receipts/receipt-types.js';
import type { TokenSource } from '../../billing/index.js';
import type { RecordReceiptFacts, RequestRecordDoc } from './request-record-types.js';
import type { LedgerDoc } from '../ledger-types.js';

/** What a receipt takes from the request's ledger entry when the record predates the commit. */
export type LedgerFacts = Pick<LedgerDoc, 'prev_hash' | 'hash' | 'charged' | 'absorbed'>;

/** The projection that reads {@link LedgerFacts}. */
export const LEDGER_FACT_FIELDS = { prev_hash: 1, hash: 1, charged: 1, absorbed: 1 } as const;

/**
 * Whether a record's receipt needs its ledger entry: the charge was acknowledged from the spool
 * (`LEDGER_ACK=local`, or MongoDB was away), so its chain links were not known yet and what it
 * charged was provisional; the ledger entry holds the committed figures.
 */
export function needsLedgerFacts(record: Pick<ReceiptRecord, 'receipt' | 'receipt_facts'>): boolean {
  return record.receipt === undefined && record.receipt_facts !== undefined && record.receipt_facts.hash === null;
}

/** What the recorder knows of a charged request when it writes the record. */
export interface ChargedRequest {
  /** The catalog entry billed. */
  readonly model: Pick<CatalogModel, 'id' | 'priceVersion'>;
  readonly charge: ChargeOutcome;
  readonly tokenSource: TokenSource;
  readonly failure: string | undefined;
  /** The request whose stored answer was served (an exact cache hit). */
  readonly cacheHitOf?: string | undefined;
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
    ...(charged.cacheHitOf !== undefined ? { cache_hit_of: charged.cacheHitOf } : {}),
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
 * is), with the committed figures of its ledger entry where the record lacks them (see
 * {@link needsLedgerFacts}). Undefined when the request was not charged.
 */
export function storedReceipt(record: ReceiptRecord, entry?: LedgerFacts | null): string | SignedReceipt | undefined {
  if (record.receipt !== undefined) return record.receipt;
  const recorded = record.receipt_facts;
  if (recorded === undefined) return undefined;
  const facts = entry && recorded.hash === null ? { ...recorded, prev_hash: entry.prev_hash, hash: entry.hash, charged: entry.charged, absorbed: entry.absorbed } : recorded;
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
    ...(facts.cache_hit_of !== undefined ? { cacheHitOf: facts.cache_hit_of } : {}),
    settledAt: facts.settled_at,
  });
  return JSON.stringify(receipt);
}
