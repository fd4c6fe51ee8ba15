import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Agent } from 'undici';
import { createUpstreamClient } from '../../../src/providers/http/upstream-client.js';
import { createMistralOcrAdapter } from '../../../src/providers/mistral-ocr/mistral-ocr-adapter.js';
import { fromOcrResponse } from '../../../src/providers/mistral-ocr/mistral-ocr-response.js';
import type { OcrCapability, OcrDocument } from '../../../src/providers/ocr/ocr-types.js';
import { GatewayError } from '../../../src/platform/errors/gateway-error.js';
import { startFakeMistralOcr, type FakeMistralOcr } from '../../fixtures/upstreams/fake-mistral-ocr.js';

let fake: FakeMistralOcr;
let agent: Agent;
let ocr: OcrCapability;
const signal = new AbortController().signal;
const pdf = Buffer.from('%PDF-1.7 fake');

beforeAll(async () => {
  fake = await startFakeMistralOcr();
  agent = new Agent();
  const client = createUpstreamClient({ connectMs: 2000, firstByteMs: 5000, idleMs: 5000, totalMs: 10_000 }, agent);
  const adapter = createMistralOcrAdapter(
    { id: 'mistral', kind: 'mistral-ocr', baseUrl: fake.baseUrl, apiKey: 'mistral-secret-abcdef' },
    { upstream: client },
  );
  if (adapter.ocr === undefined) throw new Error('adapter has no OCR capability');
  ocr = adapter.ocr;
});

afterAll(async () => {
  await fake.close();
  await agent.close();
});

beforeEach(() => {
  fake.requests.length = 0;
  fake.scenario = 'ok';
});

function recognize(document: OcrDocument) {
  return ocr.recognize({ upstreamModel: 'mistral-ocr-latest', document, signal });
}

async function errorOf(promise: Promise<unknown>): Promise<GatewayError> {
  const error: unknown = await promise.then(() => new Error('expected failure'), (e: unknown) => e);
  if (!(error instanceof GatewayError)) throw error;
  return error;
}

describe('mistral-ocr adapter', () => {
  it('sends a PDF as a document_url data URL and maps the pages', async () => {
    const result = await recognize({ kind: 'pdf', data: pdf });
    const request = fake.requests[0];
    expect([request?.method, request?.path]).toEqual(['POST', '/v1/ocr']);
    expect(request?.headers.authorization).toBe('Bearer mistral-secret-abcdef');
    expect(request?.json).toEqual({
      model: 'mistral-ocr-latest',
      document: { type: 'document_url', document_url: `data:application/pdf;base64,${pdf.toString('base64')}` },
      include_image_base64: false,
    });
    expect(result.pages).toHaveLength(2);
    expect(result.pages[0]).toMatchObject({
      index: 0,
      markdown: '# Invoice 4217\n\nTotal: 99 USD',
      dimensions: { dpi: 200, height: 2200, width: 1700 },
    });
    expect(result.pages[0]?.images).toHaveLength(1);
    expect(result.usage).toEqual({ pagesProcessed: 2, docSizeBytes: 12345 });
  });

  it('sends an image as an image_url data URL', async () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47]);
    await recognize({ kind: 'image', data: png, contentType: 'image/png' });
    expect(fake.requests[0]?.json['document']).toEqual({
      type: 'image_url',
      image_url: `data:image/png;base64,${png.toString('base64')}`,
    });
  });

  it('maps 429 to rate_limited with Retry-After', async () => {
    fake.scenario = 'rate_limited';
    const error = await errorOf(recognize({ kind: 'pdf', data: pdf }));
    expect([error.code, error.retryAfterSeconds]).toEqual(['rate_limited', 3]);
  });

  it('maps 500 to upstream_error', async () => {
    fake.scenario = 'server_error';
    expect((await errorOf(recognize({ kind: 'pdf', data: pdf }))).code).toBe('upstream_error');
  });

  it('maps 400 to invalid_request with the vendor message', async () => {
    fake.scenario = 'bad_request';
    const error = await errorOf(recognize({ kind: 'pdf', data: pdf }));
    expect(error.code).toBe('invalid_request');
    expect(error.message).toContain('invalid PDF');
  });
});

describe('mistral OCR response mapping', () => {
  it('falls back to what was sent when doc_size_bytes is null and tolerates missing dimensions', () => {
    const result = fromOcrResponse(
      { pages: [{ index: 3, markdown: 'x', images: [] }], model: 'm', usage_info: { pages_processed: 1, doc_size_bytes: null } },
      999,
    );
    expect(result.pages).toEqual([{ index: 3, markdown: 'x', images: [], dimensions: null }]);
    expect(result.usage).toEqual({ pagesProcessed: 1, docSizeBytes: 999 });
  });

  it('rejects a body without pages as upstream_error', () => {
    expect(() => fromOcrResponse({ model: 'm' }, 1)).toThrowError(GatewayError);
    try {
      fromOcrResponse({ pages: [{ index: 0 }] }, 1);
    } catch (error) {
      expect((error as GatewayError).code).toBe('upstream_error');
    }
  });
});
