import type { KeyDoc } from '../accounts/index.js';
import type { DeferredRate } from '../admission/index.js';
import type { Clock, Nano } from '../billing/index.js';
import type { CatalogCache, CatalogModel } from '../catalog/index.js';
import { type ChatDoor, type ChatFront, type ClientChannel, type FrontPlan, replayPlan } from '../chat/index.js';
import type { ChatEntry, RelayEntry } from './cache-entry.js';
import { cacheKey } from './cache-key.js';
import { type CacheHeaders, cachePolicy } from './cache-policy.js';
import { capturingFront } from './capturing-front.js';
import { hitCompletion, replayAnswer } from './chat-replay.js';
import { entryKeepers } from './entry-keepers.js';
import { admitHit, chargeHit, type HitDeps } from './hit-admission.js';
import { hitAnswer, replayRelayed } from './relay-replay.js';
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

/** The prompt's size as a stored chat answer reported it (a translated Messages stream opens with it). */
function promptTokensOf(entry: ChatEntry | RelayEntry): number {
  const usage = entry.kind === 'chat' ? (entry.completion.usage as { prompt_tokens?: unknown } | undefined) : undefined;
  return typeof usage?.prompt_tokens === 'number' ? usage.prompt_tokens : 0;
}

/** Says a charged hit again; resolves to the non-streamed answer, or undefined once streamed. */
type Replay = (cost: Nano) => Promise<unknown>;

/**
 * How the door's plan says the entry again: a translated plan says a chat answer through its
 * translation, a relay plan says a relayed answer of its own door in the vendor's form.
 * Undefined when they do not match (the model's provider changed since the answer was made).
 */
function replayOf(plan: FrontPlan, entry: ChatEntry | RelayEntry, request: ChatCacheRequest, channel: ClientChannel, created: number): Replay | undefined {
  if (plan.kind === 'chat' && entry.kind === 'chat') {
    return (cost) => {
      if (plan.headers !== undefined) channel.setHeaders(plan.headers);
      const sink = request.stream ? plan.sink(channel.events) : undefined;
      return replayAnswer(plan, hitCompletion(entry, request.requestId, created, cost), sink);
    };
  }
  if (plan.kind === 'relay' && entry.kind === 'relay' && entry.door === request.door) {
    return (cost) => replayRelayed(plan, entry.door, hitAnswer(entry, cost), request.stream ? channel.events : undefined);
  }
  return undefined;
}

/**
 * Serves a hit through the door's own plan: admitted as any request (at the hit's price),
 * charged durably, then written. Undefined when the door cannot say the answer again (see
 * replayOf), before anything was admitted.
 */
async function serveHit(deps: ChatCacheDeps, request: ChatCacheRequest, front: ChatFront, channel: ClientChannel, model: CatalogModel, entry: ChatEntry | RelayEntry): Promise<{ answer: unknown } | undefined> {
  const created = Math.floor(deps.clock().getTime() / 1000);
  const answering = deps.catalog.get(entry.model) ?? model;
  const plan = await replayPlan(front, { requestId: request.requestId, created, model: answering, stream: request.stream, promptTokens: promptTokensOf(entry) });
  const replay = replayOf(plan, entry, request, channel, created);
  if (replay === undefined) return undefined;
  try {
    const hit = await admitHit(deps, { key: request.key, requestId: request.requestId, rate: request.rate, model, stream: request.stream }, entry);
    try {
      const cost = await chargeHit(hit, model);
      channel.setHeaders({ [CACHE_HEADER]: 'hit' });
      return { answer: await replay(cost) };
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
    if (entry !== undefined && entry.kind !== 'embeddings') {
      const served = await serveHit(deps, request, front, channel, model, entry);
      if (served !== undefined) return { served: true, answer: served.answer };
    }
  }
  channel.setHeaders({ [CACHE_HEADER]: policy.mode === 'bypass' ? 'bypass' : 'miss' });
  const ttl = policy.ttlSeconds;
  if (ttl === undefined) return { served: false, front };
  return { served: false, front: capturingFront(front, entryKeepers(cache, { name, ttl, requestId: request.requestId, door: request.door, modelId: model.id })) };
}
