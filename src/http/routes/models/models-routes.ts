import { Router } from '@koa/router';
import { type CatalogCache, isServable, type ProviderAvailability, servableModels, toPublicModel } from '../../../catalog/index.js';
import { GatewayError } from '../../../platform/errors/index.js';
import type { GatewayContext, GatewayState } from '../../state.js';

/**
 * The public catalog, in the OpenAI list shape so SDKs' `models.list()` and
 * `models.retrieve()` work. Only models whose provider is enabled now are shown: clients map
 * ids against this list, so a listed model must answer.
 */
export function modelsRoutes(catalog: CatalogCache, providers: ProviderAvailability): Router<GatewayState> {
  const router = new Router<GatewayState>({ prefix: '/v1/models' });
  const retrieve = (ctx: GatewayContext, id: string) => {
    const model = catalog.get(id);
    if (!model || !isServable(model, providers)) {
      throw new GatewayError('model_not_found', `Model '${id}' does not exist.`, { param: 'model' });
    }
    ctx.body = toPublicModel(model);
  };
  router.get('/', (ctx) => {
    ctx.body = { object: 'list', data: servableModels(catalog.list(), providers).map(toPublicModel) };
  });
  // OpenRouter's form: /v1/models/{vendor}/{model}.
  router.get('/:vendor/:model', (ctx) => retrieve(ctx, `${ctx.params.vendor}/${ctx.params.model}`));
  // The OpenAI SDK's form: the whole id as one encoded segment (/v1/models/vendor%2Fmodel);
  // the router decodes the parameter.
  router.get('/:id', (ctx) => retrieve(ctx, ctx.params.id ?? ''));
  return router;
}
