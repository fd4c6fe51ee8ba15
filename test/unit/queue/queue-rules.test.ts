import { describe, expect, it } from 'vitest';
import { toCatalogModel } from '../../../src/catalog/catalog-cache.js';
import type { ModelDoc } from '../../../src/catalog/model-types.js';
import { estimateImageCost } from '../../../src/images/image-estimate.js';
import { parseEditRequest, parseGenerateRequest } from '../../../src/images/image-schema.js';
import { countPdfPages } from '../../../src/ocr/pdf-page-count.js';
import { jobModelOf, pricedModel } from '../../../src/queue/job-model.js';
import { stallSettings } from '../../../workers/start-workers.js';
import { textPdf } from '../../fixtures/documents/test-pdfs.js';

function model(pricing: ModelDoc['pricing']): ReturnType<typeof toCatalogModel> {
  return toCatalogModel({
    _id: 'v/m', name: 'm', kind: 'image', provider: 'p', upstream_model: 'u', pricing, capabilities: [], context_length: null, max_output_tokens: null,
    free_tier: false, created: 0, owned_by: 'v', retired: false, updated_at: new Date(0),
  });
}

describe('stalled-job timing', () => {
  it('locks for a tenth of the front-door wait, within 4 s and 30 s, checking every half lock', () => {
    expect(stallSettings(180_000)).toEqual({ lockDuration: 18_000, stalledInterval: 9_000 });
    expect(stallSettings(60_000)).toEqual({ lockDuration: 6_000, stalledInterval: 3_000 });
    expect(stallSettings(500)).toEqual({ lockDuration: 4_000, stalledInterval: 2_000 });
    expect(stallSettings(3_600_000)).toEqual({ lockDuration: 30_000, stalledInterval: 15_000 });
  });
});

describe('image request rules', () => {
  it('refuses url responses and streams, and defaults n to 1', () => {
    expect(() => parseGenerateRequest({ model: 'a/b', prompt: 'x', response_format: 'url' })).toThrow(
      expect.objectContaining({ code: 'unsupported_response_format', param: 'response_format' }),
    );
    expect(() => parseGenerateRequest({ model: 'a/b', prompt: 'x', stream: true })).toThrow(expect.objectContaining({ param: 'stream' }));
    expect(parseGenerateRequest({ model: 'a/b', prompt: 'x', response_format: 'b64_json', size: null }).params).toEqual({ prompt: 'x', n: 1 });
  });

  it('refuses an impossible WxH size at once and leaves other size names to the provider', () => {
    for (const size of ['99999x99999', '0x512', '1024x9000']) {
      expect(() => parseGenerateRequest({ model: 'a/b', prompt: 'x', size })).toThrow(expect.objectContaining({ param: 'size' }));
    }
    for (const size of ['1024x1024', '8192x64', 'auto', '2K']) expect(parseGenerateRequest({ model: 'a/b', prompt: 'x', size }).params.size).toBe(size);
  });

  it('reads multipart text fields, numbers included', () => {
    const parsed = parseEditRequest({ model: 'a/b', prompt: 'p', n: '3', size: '64x64', output_format: 'webp' });
    expect(parsed.params).toEqual({ prompt: 'p', n: 3, size: '64x64', outputFormat: 'webp' });
    expect(() => parseEditRequest({ model: 'a/b', prompt: 'p', n: 'many' })).toThrow(expect.objectContaining({ param: 'n' }));
  });

  it('holds the per-image price × n, or token prices at their bounds for token-priced models', () => {
    const perImage = model({ image: '0.002' });
    expect(estimateImageCost(perImage, { prompt: 'hello', n: 3 })).toBe(6_000_000n);
    const tokens = model({ text_input: '0.000005', image_input: '0.00001', image_output: '0.00004' });
    // 5 prompt chars + 1 reference × 6,240 + 2 outputs × 6,240 tokens.
    expect(estimateImageCost(tokens, { prompt: 'hello', n: 2 }, 1)).toBe(25_000n + 62_400_000n + 499_200_000n);
  });

  it('prices a job at the snapshot it carries', () => {
    const snapshot = jobModelOf(model({ image: '0.0375' }));
    expect(pricedModel(snapshot).prices.image).toBe(37_500_000_000_000_000n);
  });
});

describe('OCR hold estimate', () => {
  it('counts the pages of a PDF with compressed object streams, and 1 for garbage', async () => {
    expect(await countPdfPages(await textPdf([['a'], ['b'], ['c']]))).toBe(3);
    expect(await countPdfPages(Buffer.from('%PDF-1.7 no pages here'))).toBe(1);
  });
});
