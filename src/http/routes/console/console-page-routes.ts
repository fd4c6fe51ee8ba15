import { Router } from '@koa/router';
import type { GatewayState } from '../../state.js';
import { CONSOLE_HEADERS, loadConsoleAssets } from '../../../console/index.js';

/** `GET /console` and its assets, with the console's Content-Security-Policy. */
export function consolePageRoutes(): Router<GatewayState> {
  const assets = loadConsoleAssets();
  const router = new Router<GatewayState>();
  router.get(['/console', '/console/', '/console/assets/:file', '/console/vendor/:file'], (ctx, next) => {
    const asset = assets.get(ctx.path);
    if (!asset) return next();
    ctx.set(CONSOLE_HEADERS);
    // The page must never be a stale copy after a deploy; the small assets revalidate.
    ctx.set('Cache-Control', asset.type.startsWith('text/html') ? 'no-store' : 'no-cache');
    ctx.type = asset.type;
    ctx.body = asset.body;
    return undefined;
  });
  return router;
}
