import type { CostLineWire, TokenSource } from '../../billing/index.js';

/** What a charged request's receipt states (version 1). Amounts are USD decimal strings. */
export interface Receipt {
  version: 1;
  request_id: string;
  account_id: string;
  key_id: string;
  model: string;
  route: { endpoint: string; provider: string | null };
  price_version: string;
  cost_details: CostLineWire[];
  cost_usd: string;
  charged_usd: string;
  absorbed_usd: string;
  token_source: TokenSource;
  /** How the request ended: `completed`, `cache_hit`, `client_gone` or `failed:<error code>`. */
  outcome: string;
  /** For `cache_hit`: the request whose stored answer was served. */
  cache_hit_of?: string;
  /** When the charge was settled (ISO 8601). */
  time: string;
  /** `hash` of the account's previous ledger entry; null while the charge waited in the spool. */
  prev_ledger_hash: string | null;
  /** `hash` of this charge's own ledger entry; null likewise. */
  ledger_hash: string | null;
}

/**
 * A signed receipt: `payload` is the receipt's exact JSON text, `signature` the Ed25519
 * signature of its UTF-8 bytes (base64url), `kid` the key that made it. Verifying needs only
 * the public key for `kid`; `receipt` is `payload` parsed, for reading.
 */
export interface SignedReceipt {
  kid: string;
  alg: 'EdDSA';
  payload: string;
  signature: string;
}
