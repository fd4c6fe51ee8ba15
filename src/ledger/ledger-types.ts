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
  key_id: string | null;
  model: string | null;
  reference: string | null;
  /** Units billed (tokens, images, pages), for audit. */
  units: Record<string, number> | null;
  created_at: Date;
}
