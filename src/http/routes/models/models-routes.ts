import { Router } from '@koa/router';
import type { CatalogCache } from '../../../catalog/catalog-cache.js';
import { toPublicModel } from '../../../catalog/model-view.js';
import { GatewayError } from '../../../errors/gateway-error.js';
import type { GatewayState } from '../../state.js';

/** The public catalog, in the OpenAI list shape so SDKs' `models.list()` works. */
export function modelsRoutes(catalog: CatalogCache): Router<GatewayState> {
  const router = new Router<GatewayState>({ prefix: '/v1/models' });
  router.get('/', (ctx) => {
    ctx.body = { object: 'list', data: catalog.list().map(toPublicModel) };
  });
  router.get('/:vendor/:model', (ctx) => {
    const id = `${ctx.params.vendor}/${ctx.params.model}`;
    const model = catalog.get(id);
    if (!model) throw new GatewayError('model_not_found', `Model '${id}' does not exist.`, { param: 'model' });
    ctx.body = toPublicModel(model);
  });
  return router;
}
