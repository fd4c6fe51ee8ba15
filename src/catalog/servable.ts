import type { CatalogModel, CatalogRoute } from './model-types.js';

/** Tells whether a provider can serve requests right now (it is configured and enabled). */
export interface ProviderAvailability {
  isEnabled(providerId: string): boolean;
}

/** Whether a catalog entry can be served now: the provider of any of its routes is enabled. */
export function isServable(model: CatalogModel, providers: ProviderAvailability): boolean {
  return modelRoutes(model).some((route) => providers.isEnabled(route.provider));
}

/** The entries clients may see: only those that can be served now, so a listed model works. */
export function servableModels(models: readonly CatalogModel[], providers: ProviderAvailability): CatalogModel[] {
  return models.filter((model) => isServable(model, providers));
}

/** The routes of an entry; an entry without a route list (a route's own view) is its one route. */
export function modelRoutes(model: CatalogModel): readonly CatalogRoute[] {
  if (model.routes !== undefined && model.routes.length > 0) return model.routes;
  const { provider, upstream_model: upstreamModel } = model.doc;
  return [{ key: `${model.id}@${provider}/${upstreamModel}`, provider, upstreamModel, model }];
}
