import type { AddressInfo } from 'node:net';
import { Router } from '@koa/router';
import fc from 'fast-check';
import Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { staticRoutes } from '../../../src/http/middleware/static-routes.js';
import type { GatewayState } from '../../../src/http/state.js';

type Ctx = Koa.ParameterizedContext<GatewayState> & { _matchedRoute?: string; params?: Record<string, string> };

/** The steps a request passed, in order. */
const stepsOf = (ctx: Koa.ParameterizedContext<GatewayState>): string[] => ((ctx.state as { steps?: string[] }).steps ??= []);

/** What a route saw of its routing, answered as the body. */
function answer(name: string): Koa.Middleware<GatewayState> {
  return (ctx) => {
    const c = ctx as Ctx;
    ctx.body = { name, route: c._matchedRoute ?? null, params: c.params ?? null, steps: stepsOf(ctx) };
  };
}

function step(name: string): Koa.Middleware<GatewayState> {
  return async (ctx, next) => {
    stepsOf(ctx).push(name);
    await next();
  };
}

/** The same routers each time: static routes, a parameter, a router with middleware of its own, a route that calls on. */
function routers(): Router<GatewayState>[] {
  const chat = new Router<GatewayState>({ prefix: '/v1' });
  chat.post('/chat/completions', step('auth'), step('rate'), answer('chat'));
  chat.get('/models', answer('models'));
  // Both match /v1/models/list: the router runs the first, which a table must not skip past.
  chat.get('/models/:id', answer('model'));
  chat.get('/models/list', answer('list'));
  chat.post('/passes', step('pass'), (_ctx, next) => next());
  const guarded = new Router<GatewayState>({ prefix: '/v1/admin' });
  guarded.use(step('admin-guard'));
  guarded.get('/accounts', answer('accounts'));
  return [chat, guarded];
}

async function serve(mount: (router: Router<GatewayState>) => Koa.Middleware<GatewayState>): Promise<{ url: string; close: () => void }> {
  const app = new Koa<GatewayState>();
  for (const router of routers()) {
    app.use(mount(router));
    app.use(router.allowedMethods());
  }
  app.use(answer('fallthrough'));
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() };
}

async function call(base: string, method: string, path: string): Promise<{ status: number; allow: string | null; body: string }> {
  const res = await fetch(base + path, { method, ...(method === 'POST' ? { body: '{}', headers: { 'content-type': 'application/json' } } : {}) });
  return { status: res.status, allow: res.headers.get('allow'), body: method === 'HEAD' ? '' : await res.text() };
}

let byRouter: { url: string; close: () => void };
let byTable: { url: string; close: () => void };

beforeAll(async () => {
  byRouter = await serve((router) => router.routes() as Koa.Middleware<GatewayState>);
  byTable = await serve(staticRoutes);
});
afterAll(() => {
  byRouter?.close();
  byTable?.close();
});

describe('routes on fixed paths dispatched from a table', () => {
  it('runs the route chain in order, with the matched route named and no parameters', async () => {
    const res = await call(byTable.url, 'POST', '/v1/chat/completions');
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toEqual({ name: 'chat', route: '/v1/chat/completions', params: {}, steps: ['auth', 'rate'] });
  });

  it('answers every request exactly as the router does: other spellings, parameters, wrong methods, middleware of a router, a route that calls on', async () => {
    const segment = fc.constantFrom('v1', 'V1', 'chat', 'completions', 'Completions', 'models', 'gpt-4o', 'admin', 'accounts', 'passes', '', '%41');
    const path = fc.array(segment, { minLength: 1, maxLength: 4 }).map((parts) => `/${parts.join('/')}`);
    const known = fc.constantFrom('/v1/chat/completions', '/v1/chat/completions/', '/v1/models', '/v1/models/gpt-4o', '/v1/models/list', '/v1/admin/accounts', '/v1/passes', '/V1/CHAT/COMPLETIONS');
    const method = fc.constantFrom('GET', 'POST', 'PUT', 'HEAD', 'DELETE');
    await fc.assert(
      fc.asyncProperty(method, fc.oneof(known, path), async (m, p) => {
        expect(await call(byTable.url, m, p)).toEqual(await call(byRouter.url, m, p));
      }),
      { numRuns: 300 },
    );
  });

  it('leaves a router with middleware of its own to the router', async () => {
    const res = await call(byTable.url, 'GET', '/v1/admin/accounts');
    expect(JSON.parse(res.body)).toMatchObject({ name: 'accounts', steps: ['admin-guard'] });
  });
});
