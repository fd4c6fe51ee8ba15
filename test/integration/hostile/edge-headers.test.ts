import { Router } from '@koa/router';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GatewayError } from '../../../src/platform/errors/gateway-error.js';
import type { GatewayState } from '../../../src/http/state.js';
import { startTestGateway, TEST_ADMIN_TOKEN, type TestGateway } from '../../helpers/test-gateway.js';

/** Routes that set headers and then fail, as a handler half-way through its work would. */
function failingRoutes(): Router<GatewayState> {
  const router = new Router<GatewayState>({ prefix: '/v1/test' });
  const failAfterHeaders = (err: () => unknown) => async (ctx: { set(name: string, value: string): void; type: string }) => {
    ctx.set('Cache-Control', 'public, max-age=3600');
    ctx.set('X-Partial-Result', 'half');
    ctx.set('X-RateLimit-Remaining', '7');
    ctx.type = 'text/event-stream';
    throw err();
  };
  router.get('/rate', failAfterHeaders(() => new GatewayError('rate_limited', 'slow down')));
  router.get('/unavailable', failAfterHeaders(() => new GatewayError('service_unavailable', 'later')));
  router.get('/timeout', failAfterHeaders(() => new GatewayError('upstream_timeout', 'too slow')));
  router.get('/crash', failAfterHeaders(() => new Error('boom')));
  router.get('/bad', failAfterHeaders(() => new GatewayError('invalid_request', 'no', { param: 'x' })));
  return router;
}

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway({ extensions: () => ({ routers: [failingRoutes()] }) });
});
afterAll(async () => gw?.close());

const get = (path: string, headers: Record<string, string> = {}) => fetch(`${gw.url}${path}`, { headers: { origin: 'https://app.example', ...headers } });

describe('headers on every answer', () => {
  it.each([
    ['/v1/test/rate', 429, '1', null],
    ['/v1/test/unavailable', 503, '1', null],
    ['/v1/test/timeout', 504, null, null],
    ['/v1/test/crash', 500, null, null],
    ['/v1/test/bad', 400, null, 'false'],
    ['/v1/key', 401, null, 'false'],
    ['/v1/nowhere', 404, null, 'false'],
  ])('%s → %i with Retry-After %s and x-should-retry %s', async (path, status, retryAfter, shouldRetry) => {
    const res = await get(path);
    expect(res.status).toBe(status);
    expect(res.headers.get('retry-after')).toBe(retryAfter);
    expect(res.headers.get('x-should-retry')).toBe(shouldRetry);
    const id = res.headers.get('x-service-request-id');
    expect(id).toMatch(/^req_/);
    expect(res.headers.get('x-request-id')).toBe(id);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-expose-headers')).toMatch(/x-request-id.*x-should-retry.*Retry-After/i);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const body = (await res.json()) as { error: Record<string, unknown> };
    expect(Object.keys(body.error).sort()).toEqual(['code', 'message', 'param', 'type']);
  });

  it('the error boundary drops headers set before the throw but keeps rate-limit figures', async () => {
    const res = await get('/v1/test/rate');
    expect(res.headers.get('x-partial-result')).toBeNull();
    expect(res.headers.get('cache-control')).toBeNull();
    expect(res.headers.get('x-ratelimit-remaining')).toBe('7');
  });

  it('successes carry x-request-id equal to X-Service-Request-Id', async () => {
    const res = await get('/v1/models');
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toBe(res.headers.get('x-service-request-id'));
    expect(res.headers.get('x-should-retry')).toBeNull();
  });

  it('/metrics exports event-loop delay in seconds', async () => {
    await get('/metrics', { authorization: `Bearer ${TEST_ADMIN_TOKEN}` });
    const text = await (await get('/metrics', { authorization: `Bearer ${TEST_ADMIN_TOKEN}` })).text();
    for (const stat of ['p50', 'p99', 'max']) expect(text).toMatch(new RegExp(`^farebox_event_loop_delay_seconds\\{stat="${stat}"\\} [0-9.e-]+$`, 'm'));
    const worst = Number(/^farebox_event_loop_delay_max_seconds ([0-9.e-]+)$/m.exec(text)?.[1]);
    expect(worst).toBeGreaterThan(0);
  });
});
