import { describe, expect, it } from 'vitest';
import { toCatalogModel } from '../../../src/catalog/catalog-cache.js';
import type { ModelDoc } from '../../../src/catalog/model-types.js';
import { GatewayError } from '../../../src/platform/errors/gateway-error.js';
import { estimateOcrCost } from '../../../src/ocr/ocr-estimate.js';
import { pagesToProcess, parseOcrRequest } from '../../../src/ocr/ocr-schema.js';
import { toOcrBody } from '../../../src/providers/mistral-ocr/mistral-ocr-request.js';
import { pageNumbersToRead } from '../../../src/providers/local/local-ocr-pdf.js';
import { textPdf } from '../../fixtures/documents/test-pdfs.js';

const document = { type: 'document_url', document_url: 'https://example.com/a.pdf' };
const parse = (extra: Record<string, unknown>) => parseOcrRequest({ model: 'local/reader', document, ...extra });

function thrown(fn: () => unknown): GatewayError {
  try {
    fn();
  } catch (err) {
    if (err instanceof GatewayError) return err;
  }
  throw new Error('expected a GatewayError');
}

describe("Mistral's OCR options", () => {
  it('reads pages as indexes or a range string, sorted and distinct', () => {
    expect(parse({ pages: [3, 1, 1] }).options).toEqual({ pages: [1, 3] });
    expect(parse({ pages: '0, 2-4,3' }).options).toEqual({ pages: [0, 2, 3, 4] });
    expect(parse({ pages: null, include_image_base64: true, image_limit: 2, image_min_size: 0 }).options).toEqual({
      includeImageBase64: true, imageLimit: 2, imageMinSize: 0,
    });
    expect(parse({}).options).toEqual({});
  });

  it.each([[{ pages: [-1] }], [{ pages: [] }], [{ pages: '4-2' }], [{ pages: 'one' }], [{ image_limit: 1.5 }], [{ include_image_base64: 'yes' }]])(
    'refuses %j with a 400 naming the field',
    (extra) => {
      const err = thrown(() => parse(extra));
      expect([err.status, err.code]).toEqual([400, 'invalid_request']);
      expect(err.param).toMatch(/^(pages|image_limit|include_image_base64)/);
    },
  );

  it('counts only requested pages that exist', () => {
    expect(pagesToProcess(3, {})).toBe(3);
    expect(pagesToProcess(3, { pages: [1] })).toBe(1);
    expect(pagesToProcess(3, { pages: [0, 2, 7] })).toBe(2);
  });

  it('holds for the requested pages only', async () => {
    const doc: ModelDoc = {
      _id: 'local/reader', name: 'r', kind: 'ocr', provider: 'local', upstream_model: 'reader', pricing: { page: '0.001' },
      capabilities: [], context_length: null, max_output_tokens: null, free_tier: false, created: 0, owned_by: 'local', retired: false, updated_at: new Date(0),
    };
    const model = toCatalogModel(doc);
    const pdf = await textPdf([['a'], ['b'], ['c']]);
    const source = { inline: { kind: 'pdf' as const, data: pdf, contentType: 'application/pdf' } };
    expect(await estimateOcrCost(model, source)).toBe(await estimateOcrCost(model, source, { pages: [0, 1, 2] }));
    expect((await estimateOcrCost(model, source)) / 3n).toBe(await estimateOcrCost(model, source, { pages: [2] }));
  });

  it('reads only the requested PDF pages and refuses pages the document lacks', () => {
    expect(pageNumbersToRead(3, undefined)).toEqual([1, 2, 3]);
    expect(pageNumbersToRead(3, [0, 2])).toEqual([1, 3]);
    expect(thrown(() => pageNumbersToRead(2, [2])).param).toBe('pages');
  });

  it('sends the options upstream under Mistral names', () => {
    const call = { upstreamModel: 'mistral-ocr-latest', document: { kind: 'pdf' as const, data: Buffer.from('%PDF') }, signal: new AbortController().signal };
    expect(toOcrBody(call)).toMatchObject({ include_image_base64: false });
    expect(toOcrBody(call)).not.toHaveProperty('pages');
    expect(toOcrBody({ ...call, options: { pages: [1], includeImageBase64: true, imageLimit: 4, imageMinSize: 10 } })).toMatchObject({
      pages: [1], include_image_base64: true, image_limit: 4, image_min_size: 10,
    });
  });
});
