import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, type JsonResponse } from '../../helpers/admin-client.js';
import type { TestGateway } from '../../helpers/test-gateway.js';
import { startQueueGateway, type QueueGateway } from '../queue/queue-gateway.js';
import { fundedKey } from './chat-client.js';

// Without vendor credentials the vendor providers are unavailable (503): each case below
// first shows that, so the 403s prove the order rather than pass vacuously.
let q: QueueGateway;
let gw: TestGateway;
beforeAll(async () => {
  // The images and OCR routes are mounted; no worker is needed since nothing is enqueued.
  q = await startQueueGateway({ workers: false });
  gw = q.gw;
});
afterAll(async () => q?.close());

const PNG_1X1 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

const requests: Array<[string, string, (model: string) => Record<string, unknown>, string]> = [
  ['chat', '/v1/chat/completions', (model) => ({ model, messages: [{ role: 'user', content: 'hi' }] }), 'openai/gpt-4o'],
  ['images', '/v1/images/generations', (model) => ({ model, prompt: 'a cat' }), 'openai/dall-e-3'],
  ['ocr', '/v1/ocr', (model) => ({ model, document: { type: 'image_url', image_url: `data:image/png;base64,${PNG_1X1}` } }), 'mistral/mistral-ocr'],
  ['embeddings', '/v1/embeddings', (model) => ({ model, input: ['hi', 'there'] }), 'openai/text-embedding-3-small'],
];

function post(raw: string, path: string, body: Record<string, unknown>): Promise<JsonResponse> {
  return call(gw.url, 'POST', path, { token: raw, body });
}

describe.each(requests)('admission order on %s', (_name, path, body, unavailable) => {
  it('an unavailable provider answers 503 to a key that may use it', async () => {
    const { raw } = await fundedKey(gw.url, 1);
    const res = await post(raw, path, body(unavailable));
    expect(res.status).toBe(503);
  });

  it('a key restricted to local models gets 403 model_not_allowed, not the 503', async () => {
    const { raw } = await fundedKey(gw.url, 1, { limits: { models: ['local/echo'] } });
    const res = await post(raw, path, body(unavailable));
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('model_not_allowed');
  });

  it('a free-tier account asking for a paid model gets the 403 listing usable models, not the 503', async () => {
    const { raw } = await fundedKey(gw.url, 0);
    const res = await post(raw, path, body(unavailable));
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('model_not_allowed');
    expect(res.body.error.message).toContain('local/echo-free');
  });
});

describe('cheap refusals come first', () => {
  it('refuses 100 KB of one character to a paid model from a free-tier key with 403', async () => {
    const { raw } = await fundedKey(gw.url, 0);
    const res = await post(raw, '/v1/chat/completions', { model: 'local/echo', messages: [{ role: 'user', content: 'a'.repeat(100_000) }] });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('model_not_allowed');
  });

  it('a spent cap refuses with 403 before an empty balance refuses with 402', async () => {
    const { raw } = await fundedKey(gw.url, 0.000001, { limits: { spend_cap_usd: { day: 0 } } });
    const res = await post(raw, '/v1/chat/completions', { model: 'local/echo', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('key_limit_exceeded');
  });

  it('body validation comes before model resolution', async () => {
    const { raw } = await fundedKey(gw.url, 1);
    const res = await post(raw, '/v1/chat/completions', { model: 'no/such-model', messages: [] });
    expect(res.status).toBe(400);
    expect(res.body.error.param).toBe('messages');
  });
});
