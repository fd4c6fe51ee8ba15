import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDeps } from '../../../src/deps.js';
import { createLogger } from '../../../src/platform/log/logger.js';
import { adminClient, call } from '../../helpers/admin-client.js';
import { startTestGateway, type TestGateway } from '../../helpers/test-gateway.js';

let gw: TestGateway;

beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(async () => gw?.close());

describe('catalog', () => {
  it('is listed by the official openai client without provider routing', async () => {
    const client = new OpenAI({ apiKey: 'unused', baseURL: `${gw.url}/v1` });
    const models = [];
    for await (const m of client.models.list()) models.push(m);
    const ids = models.map((m) => m.id);
    expect(ids).toContain('local/echo');
    // Without vendor keys only the local models can be served, so only they are listed.
    expect(ids.every((id) => id.startsWith('local/'))).toBe(true);
    expect(ids).not.toContain('openai/gpt-4o');
    expect((await call(gw.url, 'GET', '/v1/models/openai/gpt-4o')).status).toBe(404);
    const echo = models.find((m) => m.id === 'local/echo') as unknown as Record<string, unknown>;
    expect(echo).toMatchObject({ object: 'model', owned_by: 'local', pricing: { prompt: '0.000001', completion: '0.000002' } });
    const raw = JSON.stringify((await call(gw.url, 'GET', '/v1/models')).body);
    expect(raw).not.toContain('upstream_model');
    expect(raw).not.toContain('"provider"');
    expect(models.some((m) => (m as unknown as { free_tier: boolean }).free_tier)).toBe(true);
  });

  it('spreads operator edits to another process without a restart', async () => {
    const other = await createDeps(gw.config, createLogger('silent'), { jobs: false });
    try {
      expect(other.catalog.get('acme/new-model')).toBeUndefined();
      const put = await adminClient(gw.url).call('PUT', '/models/acme/new-model', {
        name: 'Acme New', kind: 'chat', provider: 'local', upstream_model: 'echo', pricing: { prompt: '0.0000001', completion: '0.0000002' },
      });
      expect(put.status).toBe(200);
      expect((await call(gw.url, 'GET', '/v1/models/acme/new-model')).body.id).toBe('acme/new-model');
      await expect.poll(() => other.catalog.get('acme/new-model')?.doc.name, { timeout: 6000 }).toBe('Acme New');
      expect((await adminClient(gw.url).call('DELETE', '/models/acme/new-model')).status).toBe(200);
      await expect.poll(() => other.catalog.get('acme/new-model'), { timeout: 6000 }).toBeUndefined();
      expect((await call(gw.url, 'GET', '/v1/models/acme/new-model')).status).toBe(404);
    } finally {
      await other.close();
    }
  });
});
