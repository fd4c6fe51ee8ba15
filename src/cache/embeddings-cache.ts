import type { KeyDoc } from '../accounts/index.js';
import type { DeferredRate } from '../admission/index.js';
import { toUsdNumber } from '../billing/index.js';
import type { CatalogCache, CatalogModel } from '../catalog/index.js';
import type { EmbeddingsEntry } from './cache-entry.js';
import { cacheKey } from './cache-key.js';
import { type CacheHeaders, cachePolicy } from './cache-policy.js';
import { admitHit, chargeHit, type HitDeps } from './hit-admission.js';
import { hitLine } from './hit-price.js';
import type { ResponseCache } from './response-cache.js';

/** What the embeddings cache needs. */
export interface EmbeddingsCacheDeps extends HitDeps {
  readonly cache?: ResponseCache | undefined;
  readonly catalog: CatalogCache;
}

/** An embeddings request as the cache sees it. */
export interface EmbeddingsCacheRequest {
  readonly key: KeyDoc;
  readonly requestId: string;
  readonly rate?: DeferredRate | undefined;
  readonly body: unknown;
  readonly headers: CacheHeaders;
}

/**
 * What the cache did: `served` with the body of a hit; or not, with the header to send
 * (undefined when not opted in) and, when a TTL applies, `keep` to store the answer made now.
 */
export type EmbeddingsCacheOutcome =
  | { readonly served: true; readonly header: 'hit'; readonly body: Buffer }
  | { readonly served: false; readonly header: 'miss' | 'bypass' | undefined; readonly keep?: (json: Buffer) => void };

function embeddingModel(catalog: CatalogCache, body: unknown): CatalogModel | undefined {
  const id = typeof body === 'object' && body !== null ? (body as { model?: unknown }).model : undefined;
  const model = typeof id === 'string' ? catalog.get(id) : undefined;
  return model?.doc.kind === 'embedding' ? model : undefined;
}

/** The usage an embeddings answer reported: its token count and cost (exact to the nano-USD, see toUsdNumber). */
function answerUsage(json: Buffer): { promptTokens: number; costNano: bigint } | undefined {
  const usage = (JSON.parse(json.toString('utf8')) as { usage?: { prompt_tokens?: unknown; cost?: unknown } }).usage;
  if (typeof usage?.prompt_tokens !== 'number' || typeof usage.cost !== 'number') return undefined;
  return { promptTokens: usage.prompt_tokens, costNano: BigInt(Math.round(usage.cost * 1e9)) };
}

/** The stored body with this hit's usage: the original token counts, the hit's cost and line. */
function hitBody(entry: EmbeddingsEntry, cost: bigint): Buffer {
  const body = JSON.parse(entry.body) as Record<string, unknown>;
  body.usage = { prompt_tokens: entry.prompt_tokens, total_tokens: entry.prompt_tokens, cost: toUsdNumber(cost), cost_details: [hitLine(cost)] };
  return Buffer.from(JSON.stringify(body), 'utf8');
}

/**
 * The exact cache in front of `POST /v1/embeddings` (see chatThroughCache for the rules): a
 * hit is admitted at its price and charged durably before its body is returned.
 */
export async function embeddingsThroughCache(deps: EmbeddingsCacheDeps, request: EmbeddingsCacheRequest): Promise<EmbeddingsCacheOutcome> {
  const cache = deps.cache;
  const policy = cachePolicy(request.headers, request.key.limits.cache_ttl_seconds);
  if (cache === undefined || !cache.enabled || policy.mode === 'off') return { served: false, header: undefined };
  const model = embeddingModel(deps.catalog, request.body);
  if (model === undefined) return { served: false, header: undefined };
  const name = cacheKey({ accountId: request.key.account_id, door: 'embeddings', modelId: model.id, body: request.body });
  if (policy.mode === 'use') {
    const entry = await cache.lookup(name, policy.ttlSeconds, 'embeddings');
    if (entry?.kind === 'embeddings') {
      const hit = await admitHit(deps, { key: request.key, requestId: request.requestId, rate: request.rate, model, stream: false }, entry);
      try {
        return { served: true, header: 'hit', body: hitBody(entry, await chargeHit(hit, model)) };
      } finally {
        await hit.ticket.release().catch(() => undefined);
      }
    }
  }
  const header = policy.mode === 'bypass' ? 'bypass' : 'miss';
  const ttl = policy.ttlSeconds;
  if (ttl === undefined) return { served: false, header };
  const keep = (json: Buffer): void => {
    const usage = answerUsage(json);
    if (usage === undefined) return;
    const entry: EmbeddingsEntry = { kind: 'embeddings', request_id: request.requestId, model: model.id, stored_at: cache.now(), cost_nano: usage.costNano.toString(), body: json.toString('utf8'), prompt_tokens: usage.promptTokens };
    void cache.keep(name, entry, ttl, 'embeddings');
  };
  return { served: false, header, keep };
}
