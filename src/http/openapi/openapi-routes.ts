import { Router } from '@koa/router';
import type { GatewayState } from '../state.js';
import { openApiDocument } from './openapi-document.js';

/** `GET /v1/openapi.json`: the description of Farebox's own API, for anyone (no key). */
export function openApiRoutes(): Router<GatewayState> {
  const router = new Router<GatewayState>();
  router.get('/v1/openapi.json', (ctx) => {
    ctx.set('Cache-Control', 'public, max-age=300');
    ctx.body = openApiDocument();
  });
  return router;
}
