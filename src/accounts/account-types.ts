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
  /** The last entry of the account's ledger hash chain; absent before its first entry. */
  ledger_head?: ChainHead;
}
