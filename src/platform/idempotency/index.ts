/**
 * Idempotency keys: stored answers replayed for repeated requests.
 * This file is the module's face: code outside the module imports from here only.
 */
export { ensureIdempotencyIndexes, idempotencyCollections, type IdempotencyCollections } from './idempotency-collection.js';
export { IdempotencyStore } from './idempotency-store.js';
export type { StoredResponse } from './idempotency-types.js';
export { ResponseBlobs } from './response-blobs.js';
