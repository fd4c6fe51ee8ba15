import { describe, expect, it } from 'vitest';
import { cacheKey, cachePolicy, hitCost, keyedBody } from '../../../src/cache/index.js';
import type { CatalogModel } from '../../../src/catalog/index.js';

const base = { accountId: 'acct_a', door: 'chat/completions' as const, modelId: 'local/echo' };
const body = { model: 'local/echo', temperature: 0.2, messages: [{ role: 'user', content: 'hi' }], tools: [{ type: 'function', function: { name: 'f', parameters: { b: 1, a: 2 } } }] };

describe('cache key', () => {
  it('ignores object key order at every depth', () => {
    const reordered = { tools: [{ function: { parameters: { a: 2, b: 1 }, name: 'f' }, type: 'function' }], messages: [{ content: 'hi', role: 'user' }], temperature: 0.2, model: 'local/echo' };
    expect(keyedBody(reordered)).toBe(keyedBody(body));
    expect(cacheKey({ ...base, body: reordered })).toBe(cacheKey({ ...base, body }));
  });

  it('leaves out the fields that do not change the answer', () => {
    const delivered = { ...body, stream: true, stream_options: { include_usage: true }, user: 'u-1', metadata: { user_id: 'x' }, model: 'an/alias' };
    expect(cacheKey({ ...base, body: delivered })).toBe(cacheKey({ ...base, body }));
  });

  it('changes with every field that changes the answer', () => {
    const key = cacheKey({ ...base, body });
    expect(cacheKey({ ...base, body: { ...body, temperature: 0.3 } })).not.toBe(key);
    expect(cacheKey({ ...base, body: { ...body, seed: 1 } })).not.toBe(key);
    expect(cacheKey({ ...base, body: { ...body, response_format: { type: 'json_object' } } })).not.toBe(key);
    expect(cacheKey({ ...base, body: { ...body, messages: [{ role: 'user', content: 'hi ' }] } })).not.toBe(key);
    // Array order is meaning (the conversation), never sorted.
    const two = [{ role: 'user', content: 'a' }, { role: 'user', content: 'b' }];
    expect(cacheKey({ ...base, body: { ...body, messages: two } })).not.toBe(cacheKey({ ...base, body: { ...body, messages: [...two].reverse() } }));
  });

  it('never matches across accounts, doors or models', () => {
    const key = cacheKey({ ...base, body });
    expect(cacheKey({ ...base, accountId: 'acct_b', body })).not.toBe(key);
    expect(cacheKey({ ...base, door: 'responses', body })).not.toBe(key);
    expect(cacheKey({ ...base, modelId: 'local/echo-free', body })).not.toBe(key);
    // Length prefixes: moving characters between parts gives another key.
    expect(cacheKey({ ...base, accountId: 'acct_', modelId: 'alocal/echo', body })).not.toBe(cacheKey({ ...base, accountId: 'acct_a', modelId: 'local/echo', body }));
    expect(key).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('cache policy', () => {
  it('opts in by header or by the key; no-cache bypasses the lookup, no-store the store too', () => {
    expect(cachePolicy({}, undefined)).toEqual({ mode: 'off' });
    expect(cachePolicy({ farebox: 'max-age=60' }, undefined)).toEqual({ mode: 'use', ttlSeconds: 60 });
    expect(cachePolicy({ cacheControl: 'public, max-age=30' }, undefined)).toEqual({ mode: 'use', ttlSeconds: 30 });
    expect(cachePolicy({}, 120)).toEqual({ mode: 'use', ttlSeconds: 120 });
    expect(cachePolicy({ farebox: 'max-age=0' }, 120)).toEqual({ mode: 'off' });
    expect(cachePolicy({ cacheControl: 'no-cache' }, 120)).toEqual({ mode: 'bypass', ttlSeconds: 120 });
    expect(cachePolicy({ cacheControl: 'no-store', farebox: 'max-age=60' }, 120)).toEqual({ mode: 'bypass', ttlSeconds: undefined });
    expect(cachePolicy({ farebox: 'max-age=abc' }, undefined)).toEqual({ mode: 'off' });
    expect(cachePolicy({ farebox: 'max-age=99999999' }, undefined)).toEqual({ mode: 'use', ttlSeconds: 30 * 24 * 3600 });
  });
});

describe('hit price', () => {
  const model = (cacheHit?: string) => ({ id: 'm/x', doc: { pricing: cacheHit === undefined ? {} : { cache_hit: cacheHit } } }) as unknown as CatalogModel;
  it('is the fraction of the original, rounded half up to the nano-USD, 0 by default', () => {
    expect(hitCost(model(), 12_345n)).toBe(0n);
    expect(hitCost(model('0.1'), 12_345n)).toBe(1_235n);
    expect(hitCost(model('0.1'), 12_344n)).toBe(1_234n);
    expect(hitCost(model('0.3'), 7n)).toBe(2n);
    expect(hitCost(model('0.5'), 10n)).toBe(5n);
    expect(hitCost(model('1'), 12_345n)).toBe(12_345n);
    expect(hitCost(model('0.000000000000000001'), 1n)).toBe(0n);
    expect(hitCost(model('0.5'), 3n)).toBe(2n);
  });
});
