import { Router } from '@koa/router';
import { toCatalogModel } from '../../../catalog/catalog-cache.js';
import { modelInputSchema } from '../../../catalog/model-schema.js';
import { toPublicModel } from '../../../catalog/model-view.js';
import type { Deps } from '../../../deps.js';
import { GatewayError } from '../../../errors/gateway-error.js';
import type { GatewayContext, GatewayState } from '../../state.js';
import { validate } from '../../validate.js';

const ID_PART = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,99}$/;

function modelId(ctx: GatewayContext): string {
  const { vendor, model } = (ctx as GatewayContext & { params: Record<string, string> }).params;
  if (!vendor || !model || !ID_PART.test(vendor) || !ID_PART.test(model)) {
    throw new GatewayError('invalid_request', 'model id must be <vendor>/<model>', { param: 'model' });
  }
  return `${vendor}/${model}`;
}

/** Operator edits of the catalog; every web process picks them up via invalidation. */
export function adminModelRoutes(deps: Pick<Deps, 'catalogRepository' | 'catalog' | 'bus'>): Router<GatewayState> {
  const router = new Router<GatewayState>();
  const announce = async () => {
    await deps.catalog.reload();
    await deps.bus.publish({ type: 'catalog' });
  };
  router.put('/models/:vendor/:model', async (ctx) => {
    const input = validate(modelInputSchema, ctx.request.body);
    const doc = await deps.catalogRepository.upsert(modelId(ctx), input);
    await announce();
    ctx.body = { data: { ...toPublicModel(toCatalogModel(doc)), provider: doc.provider, upstream_model: doc.upstream_model } };
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
