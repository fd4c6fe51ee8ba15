import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../src/platform/errors/gateway-error.js';
import { KeyPool, keyedClient } from '../../../src/providers/http/key-pool.js';
import type { UpstreamClient, UpstreamRequestOptions } from '../../../src/providers/http/upstream-client.js';
import { upstreamStatusError } from '../../../src/providers/http/upstream-errors.js';
import { loadProviders } from '../../../src/providers/load-providers.js';

const KEYS = [{ env: 'K1', value: 'v1' }, { env: 'K2', value: 'v2' }, { env: 'K3', value: 'v3' }];

/** A client that answers with `answer(key)` for the key in the authorization header. */
function fakeClient(answer: (key: string) => GatewayError | undefined, seen: string[]): UpstreamClient {
  const send = async (opts: UpstreamRequestOptions) => {
    const key = String(opts.headers?.authorization).replace('Bearer ', '');
    seen.push(key);
    const err = answer(key);
    if (err) throw err;
    return { status: 200, headers: {}, body: {} };
  };
  return { json: send, request: send as never };
}

describe('KeyPool', () => {
  it('spreads requests over the keys in turn', async () => {
    const seen: string[] = [];
    const client = keyedClient(fakeClient(() => undefined, seen), new KeyPool('p', KEYS), (k) => ({ authorization: `Bearer ${k}` }));
    for (let i = 0; i < 6; i += 1) await client.json({ url: 'http://x', signal: new AbortController().signal });
    expect(seen).toEqual(['v1', 'v2', 'v3', 'v1', 'v2', 'v3']);
  });

  it('sets aside a key refused with 401/403 or insufficient_quota, names it by variable, then fails without a call', async () => {
    const seen: string[] = [];
    const events: Array<{ keyEnv: string; reason: string }> = [];
    const refusals: Record<string, GatewayError> = {
      v1: upstreamStatusError(401, {}, '{"error":{"code":"invalid_api_key"}}'),
      v2: upstreamStatusError(429, {}, '{"error":{"code":"insufficient_quota","message":"You exceeded your current quota"}}'),
      v3: upstreamStatusError(403, {}, '{}'),
    };
    const pool = new KeyPool('p', KEYS, (e) => events.push(e));
    const client = keyedClient(fakeClient((k) => refusals[k], seen), pool, (k) => ({ authorization: `Bearer ${k}` }));
    for (let i = 0; i < 3; i += 1) await expect(client.json({ url: 'http://x', signal: new AbortController().signal })).rejects.toBeInstanceOf(GatewayError);
    expect(events).toEqual([
      { provider: 'p', keyEnv: 'K1', reason: 'status_401' },
      { provider: 'p', keyEnv: 'K2', reason: 'insufficient_quota' },
      { provider: 'p', keyEnv: 'K3', reason: 'status_403' },
    ]);
    await expect(client.json({ url: 'http://x', signal: new AbortController().signal })).rejects.toMatchObject({ upstream: { code: 'keys_exhausted' } });
    expect(seen).toEqual(['v1', 'v2', 'v3']);
  });

  it('keeps a key that failed for another reason (a 500 is not the key)', async () => {
    const seen: string[] = [];
    const pool = new KeyPool('p', KEYS.slice(0, 1));
    const client = keyedClient(fakeClient(() => upstreamStatusError(500, {}, '{}'), seen), pool, (k) => ({ authorization: `Bearer ${k}` }));
    for (let i = 0; i < 2; i += 1) await expect(client.json({ url: 'http://x', signal: new AbortController().signal })).rejects.toBeInstanceOf(GatewayError);
    expect(seen).toEqual(['v1', 'v1']);
  });
});

describe('providers file keys', () => {
  it('api_key_env may list variables: the set ones are pooled, the provider is enabled by any', () => {
    const file = JSON.stringify([{ id: 'p', kind: 'openai', base_url: 'https://x.test/v1', api_key_env: ['A1', 'A2', 'A3'] }]);
    const [p] = loadProviders(file, { A1: '', A2: 'two', A3: 'three' });
    expect(p).toMatchObject({ enabled: true, apiKey: 'two', apiKeys: [{ env: 'A2', value: 'two' }, { env: 'A3', value: 'three' }] });
    const [off] = loadProviders(file, {});
    expect(off?.enabled).toBe(false);
  });
});
