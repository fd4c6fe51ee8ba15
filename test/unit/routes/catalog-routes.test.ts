import { describe, expect, it } from 'vitest';
import { aliasCollisions, aliasIndex } from '../../../src/catalog/aliases.js';
import { toCatalogModel } from '../../../src/catalog/catalog-cache.js';
import { modelInputSchema } from '../../../src/catalog/model-schema.js';
import type { ModelDoc } from '../../../src/catalog/model-types.js';
import { isServable } from '../../../src/catalog/servable.js';

const base = { name: 'M', kind: 'chat', pricing: { prompt: '0.000001', completion: '0.000002' } };

function doc(overrides: Partial<ModelDoc>): ModelDoc {
  return {
    _id: 'v/m', name: 'M', kind: 'chat', provider: 'a', upstream_model: 'm-a', pricing: { prompt: '0.000001', completion: '0.000002' },
    capabilities: [], context_length: null, max_output_tokens: null, free_tier: false, created: 0, owned_by: 'v', retired: false, updated_at: new Date(0), ...overrides,
  };
}

describe('catalog routes', () => {
  it('accepts the one-route pair or a routes list, never both or neither', () => {
    expect(modelInputSchema.safeParse({ ...base, provider: 'a', upstream_model: 'x' }).success).toBe(true);
    expect(modelInputSchema.safeParse({ ...base, routes: [{ provider: 'a', upstream_model: 'x' }] }).success).toBe(true);
    expect(modelInputSchema.safeParse({ ...base, provider: 'a', upstream_model: 'x', routes: [{ provider: 'a', upstream_model: 'x' }] }).success).toBe(false);
    expect(modelInputSchema.safeParse(base).success).toBe(false);
    expect(modelInputSchema.safeParse({ ...base, routes: [] }).success).toBe(false);
  });

  it('normalizes to routes, each with the model prices overridden by its own, and its own price version', () => {
    const model = toCatalogModel(doc({ routes: [{ provider: 'a', upstream_model: 'm-a' }, { provider: 'b', upstream_model: 'm-b', pricing: { completion: '0.000005' } }] }));
    const [a, b] = model.routes ?? [];
    expect(a?.model.prices).toEqual(model.prices);
    expect(a?.model.priceVersion).toBe(model.priceVersion);
    expect(b?.model.doc).toMatchObject({ provider: 'b', upstream_model: 'm-b', pricing: { prompt: '0.000001', completion: '0.000005' } });
    expect(b?.model.prices.completion).toBe(5_000_000_000_000n);
    expect(b?.model.priceVersion).not.toBe(model.priceVersion);
    expect(b?.model.id).toBe('v/m');
  });

  it('is servable while any route is', () => {
    const model = toCatalogModel(doc({ routes: [{ provider: 'a', upstream_model: 'x' }, { provider: 'b', upstream_model: 'y' }] }));
    expect(isServable(model, { isEnabled: (p) => p === 'b' })).toBe(true);
    expect(isServable(model, { isEnabled: () => false })).toBe(false);
    expect(isServable(toCatalogModel(doc({})), { isEnabled: (p) => p === 'a' })).toBe(true);
  });
});

describe('aliases', () => {
  it('finds aliases that shadow an id or are claimed twice', () => {
    expect(aliasCollisions([{ _id: 'v/a', aliases: ['v/b'] }, { _id: 'v/b' }])).toHaveLength(1);
    expect(aliasCollisions([{ _id: 'v/a', aliases: ['v/x'] }, { _id: 'v/b', aliases: ['v/x'] }])).toHaveLength(1);
    expect(aliasCollisions([{ _id: 'v/a', aliases: ['v/x'] }, { _id: 'v/b', aliases: ['v/y'] }])).toEqual([]);
  });

  it('never lets an alias shadow a real id', () => {
    const index = aliasIndex([{ _id: 'v/a', aliases: ['v/b', 'v/latest'] }, { _id: 'v/b' }]);
    expect(index.get('v/b')).toBeUndefined();
    expect(index.get('v/latest')).toBe('v/a');
  });
});
