import type { CatalogModel } from '../catalog/index.js';
import type { KeyDoc } from '../accounts/index.js';
import type { ChargeOutcome } from '../ledger/index.js';
import type { BilledUnits, CostLineWire, TokenSource } from '../billing/index.js';
import type { DeferredRate, RateReport } from './deferred-rate.js';
import type { RateInfo } from './rate-info.js';

/** A request asking to be admitted, after auth, RPM, validation and model resolution. */
export interface AdmissionRequest {
  requestId: string;
  key: KeyDoc;
  model: CatalogModel;
  /** What `authorize` gave for this key and model, so admission does not ask again (absent: it does). */
  authorized?: Authorization;
  /** Worst-case cost, nano-USD: held in full, or the request is refused (never clamped). */
  estimate: bigint;
  /** Says what would fit into a room of nano-USD, for the refusal message. */
  fit?: (room: bigint) => string;
  /** The units `estimate` prices (for the quote a `max_cost_exceeded` refusal carries). */
  worstUnits?: BilledUnits;
  /**
   * The lines of `estimate` when they are not `worstUnits` at list prices (a chat hold): built
   * only for a refusal's quote, since formatting them costs more than admitting from a slice.
   */
  worstLines?: () => CostLineWire[];
  /** Streams take a concurrent-stream slot. */
  stream: boolean;
  /** The request's RPM check when still pending: admission runs it first, in the same script. */
  rate?: DeferredRate;
  /**
   * Tokens the request reserves against tokens-per-minute limits: its held input tokens plus
   * the output limit sent upstream (absent: 0, a request not billed by the token).
   */
  tokens?: number;
  /** The end user the request names (`user`, `metadata.user_id` or `X-Farebox-End-User`). */
  endUser?: string;
  /** The request field that names the end user, for the 400 when a key needs one (default `user`). */
  endUserParam?: string;
  /** How long its hold lives without a renewal (absent: the hold TTL); a slice's is its own TTL. */
  leaseMs?: number;
  /** The request whose hold this one grows (see AdmissionTicket.grow): no request rate is counted for it. */
  growing?: string;
}

/**
 * Proof that `authorize` let a key use a model. Admission honours only proofs it issued, for
 * the same key and model, so a request is authorized once yet no path can skip it.
 */
export interface Authorization {
  readonly keyId: string;
  readonly modelId: string;
}

/** What a settle knows beyond the units, for the request's record and receipt. */
export interface SettleDetail {
  /** Where the token counts came from (absent: the upstream's usage). */
  tokenSource?: TokenSource;
  /** The billed lines when the caller already priced the units (a job's worker): charged as they are. */
  lines?: CostLineWire[];
}

/** An admitted request: holds money (and maybe a stream slot) until settled or released. */
export interface AdmissionTicket {
  readonly requestId: string;
  /** Amount held, nano-USD. */
  readonly held: bigint;
  /**
   * Charges the actual cost durably (ledger, idempotent by request id), then frees the hold
   * and the slot. Resolves after the charge is durable, so callers report cost only after it.
   * `priced` is the catalog entry as the route that answered prices it (its lines and price
   * version go to the ledger); absent, the entry the request was admitted with. `detail`
   * tells the request's record where the counts came from.
   */
  settle(cost: bigint, units: BilledUnits, priced?: CatalogModel, detail?: SettleDetail): Promise<ChargeOutcome>;
  /**
   * Frees the hold and slot without charging here: either nothing is owed, or the charge was
   * made elsewhere (a worker) and `charged` tells admission state what left the balance.
   */
  release(charged?: ChargeOutcome): Promise<void>;
  /**
   * Holds `extra` nano-USD more for the request, under the same balance and spend caps as
   * admission (a running request that needs more, e.g. a stream continued on another route),
   * so `held` and the most `settle` may charge grow with it. Resolves false, holding nothing
   * more, when they cannot take it or the request already ended. Absent: the hold cannot grow.
   */
  grow?(extra: bigint): Promise<boolean>;
  /**
   * Frees the request's concurrent-stream slot now (its client left) while the hold stays
   * until settle or release. Never fails: Redis trouble only logs, and the slot then lapses.
   */
  freeStreamSlot?(): Promise<void>;
}

/**
 * Admission control (DESIGN §4.4, §5). Order: auth → `checkRate` (or `deferRate`, run inside
 * `admit` ahead of its own refusals) → body validation → model
 * resolution → `authorize` (allowlist and free tier) → provider availability (the caller) →
 * `admit` (end user named when the key needs one → tokens per minute → spend caps of the key,
 * its account and the end user → balance → stream slot).
 */
export interface Admission {
  /** RPM per key and per account (its own rpm, or the free tier's); throws 429 `rate_limited`. */
  checkRate(key: KeyDoc): Promise<RateInfo>;
  /** The RPM check of a request that will reach `admit`, which runs it (see {@link DeferredRate}). */
  deferRate(key: KeyDoc, report: RateReport): DeferredRate;
  /**
   * Whether the key may use the model (role, allowlist, free tier); throws 403
   * `model_not_allowed`. Answers at once when it can (a caller awaits either).
   */
  authorize(key: KeyDoc, model: CatalogModel): Authorization | Promise<Authorization>;
  /**
   * Refuses with 403/402/429 per the error table (a rejected promise); otherwise holds and
   * returns a ticket, at once when it can (a caller awaits either).
   */
  admit(request: AdmissionRequest): AdmissionTicket | Promise<AdmissionTicket>;
}
