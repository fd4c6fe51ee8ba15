/** Units a request consumed, as the record view shows them (only the ones that apply). */
export interface RecordUsage {
  input_tokens?: number;
  output_tokens?: number;
  images?: number;
  pages?: number;
}

/**
 * One billed or refused inference request, keyed by its request id. Records are for lookup
 * and audit, not money: the ledger stays the money of record, and records expire (TTL).
 */
export interface RequestRecordDoc {
  _id: string;
  account_id: string;
  key_id: string;
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
  /** Full metered cost (what `usage.cost` reported), nano-USD; 0 when nothing was charged. */
  cost: bigint;
  latency_ms: number;
  created_at: Date;
}
