/** Spend caps per calendar window (UTC day, ISO week, month) in nano-USD; each is optional. */
export interface WindowCaps {
  day?: bigint;
  week?: bigint;
  month?: bigint;
}

/** Spend caps of a key in nano-USD; each is optional. */
export interface SpendCaps extends WindowCaps {
  lifetime?: bigint;
}

/** Limits over a share of traffic (an account across its keys, each end user of a key). */
export interface SharedLimits {
  spend_cap?: WindowCaps;
  rpm?: number;
  /** Tokens per minute: input held plus output limit sent upstream, replaced by the billed tokens. */
  tpm?: number;
}

/** Per-key limits as stored. */
export interface KeyLimits {
  spend_cap?: SpendCaps;
  rpm?: number;
  /** Tokens per minute (see {@link SharedLimits.tpm}). */
  tpm?: number;
  concurrent_streams?: number;
  /** Allowlist of catalog ids; absent means every model. */
  models?: string[];
  /** Most one request may cost at worst (its hold), nano-USD: above it, 402 `max_cost_exceeded`. */
  max_cost_per_request?: bigint;
  /** Limits applied to each distinct end user the requests name; such a key refuses requests naming none. */
  end_user_limits?: SharedLimits;
  /** Opts every request of the key in to the exact response cache for this long (0: not opted in). */
  cache_ttl_seconds?: number;
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
  /**
   * Lifetime cost of requests made with this key, nano-USD, as the key document holds it:
   * charges now add to the key's lifetime spend bucket instead, so readers take
   * `lifetimeSpend`, and `KeyService` answers with the sum.
   */
  spend: bigint;
  created_at: Date;
}

/**
 * Spend of one key (or account, or end user of a key: see `bucketOwner`) in one UTC calendar
 * period (`d:2026-11-21`, `w:2026-11-16`, `m:2026-11`).
 */
export interface KeySpendDoc {
  _id: string;
  key_id: string;
  period: string;
  amount: bigint;
  /** When this record may be dropped (TTL index); absent on a key's lifetime document, which stays. */
  expires_at?: Date;
}
