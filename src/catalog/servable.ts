import type { CatalogModel } from './model-types.js';

/** Tells whether a provider can serve requests right now (it is configured and enabled). */
export interface ProviderAvailability {
  isEnabled(providerId: string): boolean;
}

/** Whether a catalog entry can be served now: its provider is enabled. */
export function isServable(model: CatalogModel, providers: ProviderAvailability): boolean {
  return providers.isEnabled(model.doc.provider);
}

/** The entries clients may see: only those that can be served now, so a listed model works. */
export function servableModels(models: readonly CatalogModel[], providers: ProviderAvailability): CatalogModel[] {
  return models.filter((model) => isServable(model, providers));
}
