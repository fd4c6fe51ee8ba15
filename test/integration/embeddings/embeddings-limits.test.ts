import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, testEnv, type TestGateway } from '../../helpers/test-gateway.js';
import { fundedKey } from '../chat/chat-client.js';
import { embed } from './embeddings-client.js';

/** Embeddings go through the same RPM, spend caps and key roles as chat. */
const MODEL = 'local/hashed-ngrams';
let gw: TestGateway;

beforeAll(async () => {
  gw = await startTestGateway({ env: testEnv({ LOG_LEVEL: 'warn' }) });
});
afterAll(async () => gw?.close());

describe('embeddings limits', () => {
  it('counts against RPM: the request over the limit gets 429 before its body is looked at', async () => {
    const { raw } = await fundedKey(gw.url, 1, { limits: { rpm: 2 } });
    expect((await embed(gw.url, raw, { model: MODEL, input: 'one' })).status).toBe(200);
    const second = await embed(gw.url, raw, { model: MODEL, input: 'two' });
    expect(second.status).toBe(200);
    expect(second.headers.get('x-ratelimit-limit')).toBe('2');
    const third = await embed(gw.url, raw, { model: MODEL, input: '' });
    expect(third.status).toBe(429);
    expect(third.body.error.code).toBe('rate_limited');
    expect(Number(third.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });

  it('stops at a spend cap with 403 key_limit_exceeded, counting the hold of the input', async () => {
    const { raw } = await fundedKey(gw.url, 1, { limits: { spend_cap_usd: { lifetime: 0.0000001 } } });
    const small = await embed(gw.url, raw, { model: MODEL, input: 'tiny' });
    expect(small.status).toBe(200);
    const big = await embed(gw.url, raw, { model: MODEL, input: Array.from({ length: 50 }, (_, i) => `sentence number ${i} that costs something`) });
    expect(big.status).toBe(403);
    expect(big.body.error.code).toBe('key_limit_exceeded');
  });

  it('refuses management keys', async () => {
    const { raw } = await fundedKey(gw.url, 1, { role: 'management' });
    const res = await embed(gw.url, raw, { model: MODEL, input: 'x' });
    expect(res.status).toBe(403);
  });
});
