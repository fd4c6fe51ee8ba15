import type { CatalogModel } from './model-types.js';
import { modelRoutes } from './servable.js';

/**
 * The entry as its costliest route prices it, for a hold that covers whichever route answers:
 * `cost` is the worst-case cost of the request at one route's prices.
 */
export function costliestRoute(model: CatalogModel, cost: (priced: CatalogModel) => bigint): CatalogModel {
  let worst = model;
  let worstCost = cost(model);
  for (const route of modelRoutes(model)) {
    const routeCost = cost(route.model);
    if (routeCost > worstCost) {
      worst = route.model;
      worstCost = routeCost;
    }
  }
  return worst;
}

/**
 * Checks that some route of the entry can serve now: `serve` throws for a provider that
 * cannot (disabled, or without the capability). Throws the first route's refusal when none can.
 */
export function requireServingRoute(model: CatalogModel, serve: (provider: string) => unknown): void {
  let first: unknown;
  for (const route of modelRoutes(model)) {
    try {
      serve(route.provider);
      return;
    } catch (err) {
      first ??= err;
    }
  }
  throw first;
}
