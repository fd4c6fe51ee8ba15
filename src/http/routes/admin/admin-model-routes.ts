import { Router } from '@koa/router';
import {
  type CatalogCache,
  type CatalogModel,
  type CatalogRepository,
  isServable,
  modelInputSchema,
  modelRoutes,
  type ProviderAvailability,
  toCatalogModel,
  toPublicModel,
} from '../../../catalog/index.js';
import type { RouteHealth } from '../../../routing/index.js';
import { GatewayError } from '../../../platform/errors/index.js';
import type { GatewayContext, GatewayState } from '../../state.js';
import { validate } from '../../../platform/validation/index.js';
import type { InvalidationBus } from '../../../platform/redis/index.js';
import type { ProviderRegistry } from '../../../providers/index.js';

/** What the operator's catalog routes use. */
export interface AdminModelDeps {
  readonly catalogRepository: CatalogRepository;
  readonly catalog: CatalogCache;
  readonly bus: InvalidationBus;
  readonly providers: ProviderRegistry;
}

const ID_PART = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,99}$/;

function modelId(ctx: GatewayContext): string {
  const { vendor, model } = (ctx as GatewayContext & { params: Record<string, string> }).params;
  if (!vendor || !model || !ID_PART.test(vendor) || !ID_PART.test(model)) {
    throw new GatewayError('invalid_request', 'model id must be <vendor>/<model>', { param: 'model' });
  }
  return `${vendor}/${model}`;
}

/** An entry as operators see it: public fields, private routing and whether it can be served now. */
function operatorView(model: CatalogModel, providers: ProviderAvailability, health?: RouteHealth): Record<string, unknown> {
  const { doc } = model;
  const routes = modelRoutes(model).map((route) => ({
    provider: route.provider,
    upstream_model: route.upstreamModel,
    pricing: { ...route.model.doc.pricing },
    price_version: route.model.priceVersion,
    // The route's own word on prefill, when it has one (else its provider's applies).
    ...(route.prefill !== undefined ? { prefill: route.prefill } : {}),
    available: providers.isEnabled(route.provider),
    ...(health !== undefined ? { health: health.view(route.key) } : {}),
  }));
  return {
    ...toPublicModel(model),
    kind: doc.kind,
    provider: doc.provider,
    upstream_model: doc.upstream_model,
    aliases: doc.aliases ?? [],
    routes,
    available: isServable(model, providers),
  };
}

/**
 * Operator view and edits of the catalog: every entry with its availability (clients see only
 * servable ones); every web process picks edits up via invalidation.
 */
export function adminModelRoutes(deps: AdminModelDeps & { readonly routeHealth?: RouteHealth }): Router<GatewayState> {
  const router = new Router<GatewayState>();
  router.get('/models', (ctx) => {
    ctx.body = { data: deps.catalog.list().map((model) => operatorView(model, deps.providers, deps.routeHealth)) };
  });
  router.get('/models/:vendor/:model', (ctx) => {
    const id = modelId(ctx);
    const model = deps.catalog.get(id);
    if (!model) throw new GatewayError('model_not_found', `Model '${id}' does not exist.`, { param: 'model' });
    ctx.body = { data: operatorView(model, deps.providers, deps.routeHealth) };
  });
  // Publishing reloads this process's catalog before it returns, then every other one.
  const announce = () => deps.bus.publish({ type: 'catalog' });
  router.put('/models/:vendor/:model', async (ctx) => {
    const input = validate(modelInputSchema, ctx.request.body);
    const doc = await deps.catalogRepository.upsert(modelId(ctx), input);
    await announce();
    ctx.body = { data: operatorView(toCatalogModel(doc), deps.providers, deps.routeHealth) };
  });
  router.delete('/models/:vendor/:model', async (ctx) => {
    const id = modelId(ctx);
    if (!(await deps.catalogRepository.retire(id))) {
      throw new GatewayError('model_not_found', `Model '${id}' does not exist.`, { param: 'model' });
    }
    await announce();
    ctx.body = { data: { id, retired: true } };
  });
  return router;
}
