import type { KeyDoc } from '../accounts/index.js';
import type { DeferredRate } from '../admission/index.js';
import { type Clock, toUsdNumber } from '../billing/index.js';
import type { CatalogCache, CatalogModel } from '../catalog/index.js';
import { type ChatDoor, type ChatFront, type ClientChannel, completionId, replayPlan } from '../chat/index.js';
import type { ChatEntry } from './cache-entry.js';
import { cacheKey } from './cache-key.js';
import { type CacheHeaders, cachePolicy } from './cache-policy.js';
import { capturingFront } from './chat-capture.js';
import { replayAnswer } from './chat-replay.js';
import { admitHit, chargeHit, type HitDeps } from './hit-admission.js';
import { hitLine, reportedCost } from './hit-price.js';
import type { ResponseCache } from './response-cache.js';

/** The response header that says what the cache did: `hit`, `miss` or `bypass`. */
export const CACHE_HEADER = 'X-Farebox-Cache';

/** What the chat doors' cache needs. */
export interface ChatCacheDeps extends HitDeps {
  readonly cache?: ResponseCache | undefined;
  readonly catalog: CatalogCache;
  readonly clock: Clock;
}

/** A chat door's request as the cache sees it. */
export interface ChatCacheRequest {
  readonly key: KeyDoc;
  readonly requestId: string;
  readonly rate?: DeferredRate | undefined;
  readonly door: ChatDoor;
  /** The body as the client sent it to the door. */
  readonly body: unknown;
  readonly headers: CacheHeaders;
  readonly stream: boolean;
}

/** Either the answer was served from the cache, or the front to run (maybe storing its answer). */
export type ChatCacheOutcome = { readonly served: true; readonly answer: unknown } | { readonly served: false; readonly front: ChatFront };

/** The catalog entry a body's `model` names, if it is a chat model (else the normal path refuses it). */
function chatModel(catalog: CatalogCache, body: unknown): CatalogModel | undefined {
  const id = typeof body === 'object' && body !== null ? (body as { model?: unknown }).model : undefined;
  const model = typeof id === 'string' ? catalog.get(id) : undefined;
  return model?.doc.kind === 'chat' ? model : undefined;
}

/** The stored completion as this request shows it: its own ids and time, the hit's cost, the original counts. */
function hitCompletion(entry: ChatEntry, requestId: string, created: number, cost: bigint): Record<string, unknown> {
  const usage = typeof entry.completion.usage === 'object' && entry.completion.usage !== null ? entry.completion.usage : {};
  return { ...entry.completion, id: completionId(requestId), created, usage: { ...usage, cost: toUsdNumber(cost), cost_details: [hitLine(cost)] } };
}

/**
 * Serves a hit through the door's own translation: admitted as any request (at the hit's
 * price), charged durably, then written. Undefined when the door cannot say the answer again
 * (it would relay the request natively), before anything was admitted.
 */
async function serveHit(deps: ChatCacheDeps, request: ChatCacheRequest, front: ChatFront, channel: ClientChannel, model: CatalogModel, entry: ChatEntry): Promise<{ answer: unknown } | undefined> {
  const created = Math.floor(deps.clock().getTime() / 1000);
  const usage = entry.completion.usage as { prompt_tokens?: unknown } | undefined;
  const promptTokens = typeof usage?.prompt_tokens === 'number' ? usage.prompt_tokens : 0;
  const answering = deps.catalog.get(entry.model) ?? model;
  const plan = await replayPlan(front, { requestId: request.requestId, created, model: answering, stream: request.stream, promptTokens });
  if (plan === undefined) return undefined;
  try {
    const hit = await admitHit(deps, { key: request.key, requestId: request.requestId, rate: request.rate, model, stream: request.stream }, entry);
    try {
      const cost = await chargeHit(hit, model);
      if (plan.headers !== undefined) channel.setHeaders(plan.headers);
      channel.setHeaders({ [CACHE_HEADER]: 'hit' });
      const sink = request.stream ? plan.sink(channel.events) : undefined;
      return { answer: await replayAnswer(plan, hitCompletion(entry, request.requestId, created, cost), sink) };
    } finally {
      // A no-op once charged; frees the hold when the charge failed.
      await hit.ticket.release().catch(() => undefined);
    }
  } finally {
    // The hit path owns the channel from here, as the chat runner does on the other path.
    channel.dispose();
  }
}

/**
 * The exact cache in front of a chat door. Not opted in (or no cache): the front as it is.
 * Opted in: a stored answer for the same account, door, model and keyed body is served
 * (`hit`); otherwise the front runs and its complete answer is stored (`miss`, or `bypass`
 * under `no-cache`, which skips the lookup only). The header is set in every opted-in case.
 */
export async function chatThroughCache(deps: ChatCacheDeps, request: ChatCacheRequest, front: ChatFront, channel: ClientChannel): Promise<ChatCacheOutcome> {
  const cache = deps.cache;
  const policy = cachePolicy(request.headers, request.key.limits.cache_ttl_seconds);
  if (cache === undefined || !cache.enabled || policy.mode === 'off') return { served: false, front };
  const model = chatModel(deps.catalog, request.body);
  if (model === undefined) return { served: false, front };
  const name = cacheKey({ accountId: request.key.account_id, door: request.door, modelId: model.id, body: request.body });
  if (policy.mode === 'use') {
    const entry = await cache.lookup(name, policy.ttlSeconds, request.door);
    if (entry?.kind === 'chat') {
      const served = await serveHit(deps, request, front, channel, model, entry);
      if (served !== undefined) return { served: true, answer: served.answer };
    }
  }
  channel.setHeaders({ [CACHE_HEADER]: policy.mode === 'bypass' ? 'bypass' : 'miss' });
  const ttl = policy.ttlSeconds;
  if (ttl === undefined) return { served: false, front };
  const keep = (completion: Record<string, unknown>): void => {
    const cost = reportedCost(completion.usage);
    const answered = typeof completion.model === 'string' ? completion.model : model.id;
    if (cost === undefined) return;
    const entry: ChatEntry = { kind: 'chat', request_id: request.requestId, model: answered, stored_at: cache.now(), cost_nano: cost.toString(), completion };
    // Stored after the answer went out; the request never waits for the cache.
    void cache.keep(name, entry, ttl, request.door);
  };
  return { served: false, front: capturingFront(front, keep) };
}
