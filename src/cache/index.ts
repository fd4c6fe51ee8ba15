/**
 * The exact response cache: opt-in, per account, for the chat doors and embeddings; hits are
 * admitted and charged at the model's `pricing.cache_hit` fraction of the original cost.
 * This file is the module's face: code outside the module imports from here only.
 */
export { type CacheDoor, cacheKey, keyedBody, UNKEYED_FIELDS } from './cache-key.js';
export { CacheMetrics, type CacheObserver } from './cache-metrics.js';
export { type CacheHeaders, cacheHeadersOf, type CachePolicy, cachePolicy, MAX_TTL_SECONDS } from './cache-policy.js';
export { CACHE_HEADER, type ChatCacheDeps, type ChatCacheOutcome, type ChatCacheRequest, chatThroughCache } from './chat-cache.js';
export { type EmbeddingsCacheDeps, type EmbeddingsCacheOutcome, embeddingsThroughCache } from './embeddings-cache.js';
export { CACHE_HIT_COMPONENT, hitCost } from './hit-price.js';
export { type CacheSettings, ResponseCache } from './response-cache.js';
