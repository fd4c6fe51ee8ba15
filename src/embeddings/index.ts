/**
 * Embeddings: admission, upstream call and settlement.
 * This file is the module's face: code outside the module imports from here only.
 */
export { admitEmbeddings } from './embeddings-admit.js';
export { createEmbeddings } from './embeddings-create.js';
export type { EmbeddingsServiceDeps } from './embeddings-deps.js';
