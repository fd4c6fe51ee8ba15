import type { SharedLimits } from './keys/key-types.js';

/** The last link of an account's ledger hash chain, kept on the account document. */
export interface ChainHead {
  seq: number;
  hash: string;
}

/** An account as stored. Amounts are nano-USD. */
export interface AccountDoc {
  _id: string;
  name: string | null;
  /** Spendable balance; never negative (overruns are recorded as absorbed). */
  balance: bigint;
  /** True until the first top-up; the unlock is permanent. */
  free_tier: boolean;
  topped_up: bigint;
  granted: bigint;
  charged: bigint;
  absorbed: bigint;
  created_at: Date;
  /** `balance.low` fires when the balance falls to this (nano-USD); absent: never. */
  balance_low_threshold?: bigint;
  /** Limits across all the account's keys (spend caps per window, rpm, tpm). */
  limits?: SharedLimits;
  /** The last entry of the account's ledger hash chain; absent before its first entry. */
  ledger_head?: ChainHead;
}
