import type { Router } from '@koa/router';
import type { Middleware } from 'koa';
import compose from 'koa-compose';
import type { GatewayState } from '../state.js';

type Layer = Router<GatewayState>['stack'][number];

/** What the router leaves on a context for a matched route, as far as Farebox reads it. */
interface RoutedContext {
  _matchedRoute?: string;
  matched?: unknown[];
  params?: Record<string, string>;
}

/** One route on a fixed path: its layer and its middleware composed once. */
interface StaticRoute {
  readonly path: string;
  readonly layer: Layer;
  readonly chain: Middleware<GatewayState>;
}

/** Whether a layer's path is fixed: no parameter, wildcard or optional part. */
function isFixed(layer: Layer): layer is Layer & { path: string } {
  return layer.methods.length > 0 && typeof layer.path === 'string' && layer.paramNames.length === 0 && !/[:*(){}?]/.test(layer.path);
}

/**
 * The routes of a router that sit on fixed paths, by `METHOD path`: each path that no other
 * layer of the router also matches (middleware of its own, a parameter route that takes the
 * same path, a second route on it), since the router would run those too. Empty for a router
 * bound to a host.
 */
function staticTable(router: Router<GatewayState>): Map<string, StaticRoute> {
  const table = new Map<string, StaticRoute>();
  if (router.host !== undefined) return table;
  for (const layer of router.stack) {
    if (!isFixed(layer) || router.stack.some((other) => other !== layer && other.match(layer.path))) continue;
    const chain = compose(layer.stack as Middleware<GatewayState>[]);
    for (const method of layer.methods) table.set(`${method} ${layer.path}`, { path: layer.path, layer, chain });
  }
  return table;
}

/**
 * The router's middleware (`router.routes()`), except that a request for one of its routes on
 * a fixed path, spelled exactly as declared, runs that route's middleware composed once at
 * start-up. The router matches every route's expression, builds the route's chain and composes
 * it again for each request: at the chat door's full rate that was about 2 % of the web's CPU.
 * Every other request (another spelling, a parameter, another router's path) goes to the router
 * as before. What Farebox reads of a routed context is set as the router sets it, and the
 * middleware names its router as the router's own does.
 */
export function staticRoutes(router: Router<GatewayState>): Middleware<GatewayState> {
  const routed = router.routes() as Middleware<GatewayState>;
  const table = staticTable(router);
  if (table.size === 0) return routed;
  const middleware: Middleware<GatewayState> = function staticRoutesMiddleware(ctx, next) {
    const route = table.get(`${ctx.method} ${ctx.path}`);
    if (route === undefined) return routed(ctx, next);
    const context = ctx as unknown as RoutedContext;
    context._matchedRoute = route.path;
    (context.matched ??= []).push(route.layer);
    context.params = {};
    return route.chain(ctx, next);
  };
  // As on the router's own middleware: what reads the routes an app serves finds them.
  return Object.assign(middleware, { router });
}
