import { describe, expect, it } from 'vitest';
import { modelInputSchema, seedModelSchema } from '../../../src/catalog/model-schema.js';
import { priceVersion } from '../../../src/catalog/price-version.js';

const chat = { name: 'M', kind: 'chat', provider: 'p', upstream_model: 'm' };

describe('catalog prices', () => {
  it('refuses a chat model without a completion price, so its output is never billed at $0', () => {
    const result = modelInputSchema.safeParse({ ...chat, pricing: { prompt: '0.000001' } });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path).toEqual(['pricing', 'completion']);
  });

  it('refuses an OCR model without a page price and an image model without an image or output-token price', () => {
    expect(modelInputSchema.safeParse({ ...chat, kind: 'ocr', pricing: { prompt: '1' } }).success).toBe(false);
    expect(modelInputSchema.safeParse({ ...chat, kind: 'image', pricing: { text_input: '1' } }).success).toBe(false);
    expect(modelInputSchema.safeParse({ ...chat, kind: 'image', pricing: { image_output: '0.00004', text_input: '0.000005' } }).success).toBe(true);
  });

  it('accepts every component price key, and the seed form checks prices too', () => {
    const pricing = { prompt: '0.000003', completion: '0.000015', internal_reasoning: '0.000015', input_cache_read: '0.0000003', input_cache_write: '0.00000375', input_cache_write_1h: '0.000006', request: '0', web_search: '0.01' };
    expect(modelInputSchema.safeParse({ ...chat, pricing }).success).toBe(true);
    expect(seedModelSchema.safeParse({ ...chat, id: 'a/b', pricing: { prompt: '1' } }).success).toBe(false);
  });

  it('gives the same prices the same version, and any price change a new one', () => {
    const base = priceVersion({ prompt: '0.000001', completion: '0.000002' });
    expect(priceVersion({ completion: '0.000002', prompt: '0.000001' })).toBe(base);
    expect(priceVersion({ prompt: '0.000001', completion: '0.000003' })).not.toBe(base);
    expect(priceVersion({ prompt: '0.000001', completion: '0.000002', input_cache_read: '0.0000001' })).not.toBe(base);
  });
});
