import { describe, expect, it } from 'vitest';
import { parsePrice } from '../../../src/billing/money.js';
import type { CatalogModel, ModelDoc, PriceKey } from '../../../src/catalog/model-types.js';
import { describeImageFit, estimateImageCost } from '../../../src/images/image-estimate.js';
import { describeOcrFit, ocrCostOfPages } from '../../../src/ocr/ocr-estimate.js';

function priced(kind: ModelDoc['kind'], pricing: Partial<Record<PriceKey, string>>): CatalogModel {
  const doc: ModelDoc = {
    _id: `test/${kind}`, name: 'Test', kind, provider: 'fake', upstream_model: 'up', pricing, capabilities: [], context_length: null, max_output_tokens: null,
    free_tier: false, created: 0, owned_by: 'test', retired: false, updated_at: new Date(0),
  };
  const prices: Partial<Record<PriceKey, bigint>> = {};
  for (const [key, value] of Object.entries(pricing) as Array<[PriceKey, string]>) prices[key] = parsePrice(value);
  return { id: doc._id, doc, prices, isFree: false, priceVersion: 'test' };
}

describe('what would fit, for refusals', () => {
  it('says how many images fit the room', () => {
    const model = priced('image', { image: '0.04' });
    const params = { prompt: 'a cat', n: 4 };
    expect(estimateImageCost(model, params)).toBe(160_000_000n);
    expect(describeImageFit(model, params, 0, 120_000_000n)).toContain('At most 3 images (n=3) fit');
    expect(describeImageFit(model, params, 0, 39_999_999n)).toContain('Not even one image fits');
  });

  it('bounds token-priced image prompts by their UTF-8 bytes', () => {
    const model = priced('image', { text_input: '0.000005', image_output: '0.00004' });
    const ascii = estimateImageCost(model, { prompt: 'ab', n: 1 });
    const wide = estimateImageCost(model, { prompt: '😀', n: 1 });
    // Two UTF-16 units, four UTF-8 bytes: the emoji may cost up to four tokens.
    expect(wide - ascii).toBe(10_000n);
  });

  it('says how many pages fit the room', () => {
    const model = priced('ocr', { page: '0.001' });
    expect(ocrCostOfPages(model, 10)).toBe(10_000_000n);
    expect(describeOcrFit(model, 10, 3_500_000n)).toContain('At most 3 pages fit');
    expect(describeOcrFit(model, 10, 999_999n)).toContain('Not even one page fits');
  });
});
