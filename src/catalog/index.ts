/**
 * The model catalog: models, aliases, prices by version and route choice.
 * This file is the module's face: code outside the module imports from here only.
 */
export { CatalogCache, toCatalogModel } from './catalog-cache.js';
export { CatalogRepository } from './catalog-repository.js';
export { modelCollections, type ModelCollections } from './model-collection.js';
export { modelInputSchema, seedModelSchema } from './model-schema.js';
export type { CatalogModel, CatalogRoute, ModelDoc, ModelKind, PriceKey } from './model-types.js';
export { toPublicModel } from './model-view.js';
export { resolveModel } from './resolve-model.js';
export { costliestRoute, requireServingRoute } from './route-choice.js';
export { isServable, modelRoutes, type ProviderAvailability, servableModels } from './servable.js';
