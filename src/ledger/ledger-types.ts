import type { CostLineWire } from '../billing/index.js';

/** Kinds of ledger entry. */
export type LedgerKind = 'charge' | 'topup' | 'grant';

/**
 * One ledger entry. Charges are keyed by request id, credits by their reference, so no
 * request or top-up can be recorded twice. Amounts are nano-USD.
 */
export interface LedgerDoc {
  _id: string;
  account_id: string;
  kind: LedgerKind;
  /** Credits: the amount added. Charges: 0. */
  credit: bigint;
  /** Charges: the full metered cost (charged + absorbed). Credits: 0. */
  cost: bigint;
  /** Charges: what left the balance. */
  charged: bigint;
  /** Charges: the part of the cost the balance could not cover. */
  absorbed: bigint;
  /**
   * Charges: metered cost beyond the request's hold, which the client is never billed and the
   * operator absorbs (an upstream reported more than the request could use).
   */
  over_limit?: bigint;
  /** Why `over_limit` was absorbed. */
  absorbed_reason?: 'upstream_over_limit';
  /** Charges: the metered components, whose amounts sum to `cost` + `over_limit`. */
  cost_details?: CostLineWire[];
  /** Charges: the version of the catalog prices the request was billed at. */
  price_version?: string;
  key_id: string | null;
  model: string | null;
  reference: string | null;
  /** Units billed (tokens, images, pages), for audit. */
  units: Record<string, number> | null;
  created_at: Date;
  /** Position in the account's hash chain (1 = first); absent on entries older than the chain. */
  seq?: number;
  /** SHA-256 of the account's previous entry's canonical form (zeros for the first). */
  prev_hash?: string;
  /** SHA-256 of this entry's canonical form (every field but `hash`). */
  hash?: string;
}
