import type { KeyDoc } from '../accounts/index.js';
import type { Admission, AdmissionTicket, DeferredRate } from '../admission/index.js';
import type { Nano } from '../billing/index.js';
import type { CatalogModel } from '../catalog/index.js';
import type { DraftLookup } from '../ledger/index.js';
import type { CacheEntry } from './cache-entry.js';
import { hitCost, hitLine } from './hit-price.js';

/** What admitting and charging a hit needs. */
export interface HitDeps {
  readonly admission: Admission;
  /** Open request records: a hit's record and receipt name the answer it was served from. */
  readonly requests?: DraftLookup;
}

/** Who asks for a stored answer. */
export interface HitRequest {
  readonly key: KeyDoc;
  readonly requestId: string;
  readonly rate?: DeferredRate | undefined;
  /** The catalog entry the request's `model` resolved to (the one in the cache key). */
  readonly model: CatalogModel;
  readonly stream: boolean;
}

/** A hit that admission let in, holding exactly what it costs until charged. */
export interface AdmittedHit {
  readonly ticket: AdmissionTicket;
  readonly cost: Nano;
  readonly entry: CacheEntry;
}

/**
 * Admits a hit as any request is admitted (allowlist and free tier, RPM, spend caps, balance),
 * with a hold of what the hit costs rather than of an upstream call's worst case. A replay
 * takes no stream slot: it holds no upstream connection and ends as fast as it is written.
 */
export async function admitHit(deps: HitDeps, request: HitRequest, entry: CacheEntry): Promise<AdmittedHit> {
  const { key, requestId, model } = request;
  const cost = hitCost(model, BigInt(entry.cost_nano));
  const authorized = await deps.admission.authorize(key, model);
  const ticket = await deps.admission.admit({ requestId, key, model, authorized, estimate: cost, worstLines: () => [hitLine(cost)], stream: false, rate: request.rate, tokens: 0 });
  const draft = deps.requests?.draft(requestId);
  if (draft !== undefined) {
    draft.admitted(model.id, model.doc.provider, request.stream);
    draft.cacheHitOf = entry.request_id;
  }
  return { ticket, cost, entry };
}

/**
 * Charges a hit durably with its own `cache_hit` line, before the answer that reports it is
 * sent. No tokens are billed: nothing was asked of an upstream.
 */
export async function chargeHit(hit: AdmittedHit, model: CatalogModel): Promise<Nano> {
  const outcome = await hit.ticket.settle(hit.cost, {}, model, { tokenSource: 'upstream', lines: [hitLine(hit.cost)] });
  return outcome.cost;
}
