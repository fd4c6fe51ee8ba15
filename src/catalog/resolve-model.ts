import { GatewayError } from '../platform/errors/index.js';
import type { CatalogCache } from './catalog-cache.js';
import type { CatalogModel, ModelKind } from './model-types.js';

const ENDPOINT_OF: Record<ModelKind, string> = {
  chat: '/v1/chat/completions',
  image: '/v1/images/generations',
  ocr: '/v1/ocr',
  embedding: '/v1/embeddings',
};

/**
 * Resolves a requested model id for an endpoint: 404 when the catalog does not list it,
 * 400 `wrong_endpoint` naming the right endpoint when it is of another kind.
 */
export function resolveModel(catalog: CatalogCache, id: string, kind: ModelKind): CatalogModel {
  const model = catalog.get(id);
  if (!model) {
    throw new GatewayError('model_not_found', `Model '${id}' does not exist. GET /v1/models lists the available models.`, {
      param: 'model',
    });
  }
  if (model.doc.kind !== kind) {
    throw new GatewayError(
      'wrong_endpoint',
      `Model '${id}' is a ${model.doc.kind} model; call ${ENDPOINT_OF[model.doc.kind]} instead.`,
      { param: 'model' },
    );
  }
  return model;
}
