/** Spend caps in nano-USD; each is optional. */
export interface SpendCaps {
  lifetime?: bigint;
  day?: bigint;
  month?: bigint;
}

/** Per-key limits as stored. */
export interface KeyLimits {
  spend_cap?: SpendCaps;
  rpm?: number;
  concurrent_streams?: number;
  /** Allowlist of catalog ids; absent means every model. */
  models?: string[];
  /** Most one request may cost at worst (its hold), nano-USD: above it, 402 `max_cost_exceeded`. */
  max_cost_per_request?: bigint;
}

/** What a key may do. */
export type KeyRole = 'inference' | 'management';

/** A key as stored: only the SHA-256 of the secret, never the secret. */
export interface KeyDoc {
  _id: string;
  account_id: string;
  hash: string;
  name: string;
  label: string;
  role: KeyRole;
  disabled: boolean;
  expires_at: Date | null;
  limits: KeyLimits;
  /** Lifetime cost of requests made with this key, nano-USD. */
  spend: bigint;
  created_at: Date;
}

/** Spend of one key in one UTC calendar period (`d:2026-11-21`, `m:2026-11`). */
export interface KeySpendDoc {
  _id: string;
  key_id: string;
  period: string;
  amount: bigint;
  /** When this record may be dropped (TTL index). */
  expires_at: Date;
}
