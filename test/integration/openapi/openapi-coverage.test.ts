import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../../src/http/app.js';
import { openApiDocument } from '../../../src/http/openapi/openapi-document.js';
import { startTestGateway, type TestGateway } from '../../helpers/test-gateway.js';

/**
 * Routes served that are not part of the API: the console's page and its static files, and
 * bull-board's queue dashboard (its own UI and JSON API under /admin/queues).
 */
const NOT_API = new Set(['GET /console', 'GET /console/', 'GET /console/assets/{file}', 'GET /console/vendor/{file}']);
const NOT_API_PREFIX = '/admin/queues';

let gw: TestGateway;
beforeAll(async () => {
  // With the job queue, so the images, OCR and queue-dashboard routes are mounted too.
  gw = await startTestGateway({ jobs: {} });
}, 120_000);
afterAll(async () => gw?.close());

interface RouterLayer {
  path: string | RegExp;
  methods: string[];
}

/** `METHOD /path/{param}` of every route the real app's routers registered (HEAD comes with GET). */
function servedRoutes(): Set<string> {
  const app = createApp(gw.deps);
  const routes = new Set<string>();
  for (const middleware of app.middleware as Array<{ router?: { stack: RouterLayer[] } }>) {
    for (const layer of middleware.router?.stack ?? []) {
      if (typeof layer.path !== 'string' || layer.path.startsWith(NOT_API_PREFIX)) continue;
      const path = layer.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
      for (const method of layer.methods) if (method !== 'HEAD') routes.add(`${method} ${path}`);
    }
  }
  return new Set([...routes].filter((route) => !NOT_API.has(route)));
}

/** `METHOD /path/{param}` of every operation in the document. */
function documentedRoutes(): Set<string> {
  const routes = new Set<string>();
  for (const [path, item] of Object.entries(openApiDocument().paths as Record<string, Record<string, unknown>>)) {
    for (const method of Object.keys(item)) routes.add(`${method.toUpperCase()} ${path}`);
  }
  return routes;
}

describe('the OpenAPI document of Farebox', () => {
  it('has an entry for every route served, and a route for every entry', () => {
    const served = servedRoutes();
    const documented = documentedRoutes();
    // Not vacuous: the operator API, keys, webhooks and the doors are all there.
    expect(served.size).toBeGreaterThan(70);
    expect(served).toContain('POST /v1/admin/accounts/{account_id}/topups');
    expect(served).toContain('PATCH /v1/webhooks/{webhook_id}');
    expect([...served].filter((route) => !documented.has(route)).sort()).toEqual([]);
    expect([...documented].filter((route) => !served.has(route)).sort()).toEqual([]);
  });

  it('is served at /v1/openapi.json without a key, as OpenAPI 3.1', async () => {
    const res = await fetch(`${gw.url}/v1/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/json');
    const body = (await res.json()) as Record<string, unknown>;
    expect(body.openapi).toBe('3.1.0');
    expect(body).toEqual(JSON.parse(JSON.stringify(openApiDocument())));
  });

  it('resolves every $ref it makes', () => {
    const text = JSON.stringify(openApiDocument());
    const doc = openApiDocument() as { components: Record<string, Record<string, unknown>> };
    const refs = [...text.matchAll(/"\$ref":"#\/components\/(\w+)\/(\w+)"/g)];
    expect(refs.length).toBeGreaterThan(50);
    for (const [, section, name] of refs) expect(doc.components[section ?? '']?.[name ?? ''], `${section}/${name}`).toBeDefined();
  });
});
