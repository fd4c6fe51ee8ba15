import type { SignedReceipt } from '../receipts/receipt-types.js';
import type { CostLineWire, TokenSource } from '../../billing/index.js';

/** Units a request consumed, as the record view shows them (only the ones that apply). */
export interface RecordUsage {
  input_tokens?: number;
  output_tokens?: number;
  images?: number;
  pages?: number;
}

/** One try of a route for a request: who was asked, how it ended, and how long it took. */
export interface AttemptRecord {
  /** The catalog id the route serves. */
  model: string;
  provider: string;
  upstream_model: string;
  /** `answered`, `failed` (before the first byte, not charged) or `skipped` (not tried). */
  outcome: 'answered' | 'failed' | 'skipped';
  /** Why it failed or was skipped (`status_429`, `timeout`, `reset`, `circuit_open`, …). */
  cause: string | null;
  /** The upstream's HTTP status, when it answered one. */
  status: number | null;
  latency_ms: number;
  /** The variable naming the upstream key used, for a provider with several keys (never its value). */
  key_env?: string;
  /**
   * Which part of a streamed answer continued across routes this line is about (1 the route
   * that broke mid-answer, 2 the route that went on with it, …); absent on an answer in one part.
   */
  leg?: number;
}

/**
 * What a charged request's receipt states beyond the record's own fields (id, account, key,
 * endpoint, provider, status, cost, cost lines, price version). The receipt is built from both
 * when it is read, so a record holds each fact once.
 */
export interface RecordReceiptFacts {
  /** The catalog id the receipt names, only when it differs from the record's `model`. */
  model?: string;
  /** The price version the receipt names, only when it differs from the record's `price_version`. */
  price_version?: string;
  charged: bigint;
  absorbed: bigint;
  token_source: TokenSource;
  /** Error code of a failure inside a stream that had answered 200. */
  failure?: string;
  /** The request whose stored answer was served (an exact cache hit). */
  cache_hit_of?: string;
  settled_at: Date;
  prev_hash: string | null;
  hash: string | null;
}

/**
 * One billed or refused inference request, keyed by its request id. Records are for lookup
 * and audit, not money: the ledger stays the money of record, and records expire (TTL).
 */
export interface RequestRecordDoc {
  _id: string;
  account_id: string;
  key_id: string;
  /** The end user the request named (`user`, `metadata.user_id` or `X-Farebox-End-User`). */
  end_user?: string;
  /** Route path, e.g. `/v1/chat/completions`. */
  endpoint: string;
  /** Catalog id once resolved; else the model the client asked for (bounded), or null. */
  model: string | null;
  provider: string | null;
  stream: boolean;
  /** HTTP status sent; 499 when the client left before an answer was sent. */
  status: number;
  error_code: string | null;
  usage: RecordUsage;
  /** What `usage.cost` reported (never above the hold), nano-USD; 0 when nothing was charged. */
  cost: bigint;
  /** The billed components (the ledger entry's lines), when charged. */
  cost_details?: CostLineWire[];
  /** The version of the catalog prices the request was billed at, when charged. */
  price_version?: string | null;
  latency_ms: number;
  created_at: Date;
  /**
   * The facts of a charged request's receipt not held elsewhere in the record; the receipt is
   * built and signed when it is read. Absent when nothing was charged.
   */
  receipt_facts?: RecordReceiptFacts;
  /**
   * The receipt as records written before `receipt_facts` hold it: its exact JSON text, or
   * (older still) the signed receipt itself.
   */
  receipt?: string | SignedReceipt;
  /** Every route tried or skipped, in order, when the request went through the route runner. */
  attempts?: AttemptRecord[];
}
