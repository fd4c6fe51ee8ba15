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
}
