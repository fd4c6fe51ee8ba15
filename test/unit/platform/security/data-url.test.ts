import { describe, expect, it } from 'vitest';
import { parseDataUrl, type DataUrlOptions } from '../../../../src/platform/documents/data-url.js';
import { GatewayError } from '../../../../src/platform/errors/gateway-error.js';

const pdfOptions: DataUrlOptions = { param: 'document.document_url', acceptedTypes: ['application/pdf'], maxBytes: 1024 };
const imageOptions: DataUrlOptions = { param: 'document.image_url', acceptedTypes: ['image/*'], maxBytes: 1024 };
const payload = Buffer.from('%PDF-1.7 tiny').toString('base64');

function errorOf(fn: () => unknown): GatewayError {
  try {
    fn();
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
  throw new Error('expected a GatewayError');
}

describe('parseDataUrl', () => {
  it('decodes a base64 PDF data URL', () => {
    const parsed = parseDataUrl(`data:application/pdf;base64,${payload}`, pdfOptions);
    expect(parsed.mimeType).toBe('application/pdf');
    expect(parsed.data.toString()).toBe('%PDF-1.7 tiny');
  });

  it('accepts media type families, parameters and any case in the header', () => {
    const parsed = parseDataUrl(`DATA:Image/PNG;name=a.png;BASE64,${Buffer.from('x').toString('base64')}`, imageOptions);
    expect(parsed.mimeType).toBe('image/png');
    expect(parsed.data.toString()).toBe('x');
  });

  it('accepts unpadded base64', () => {
    expect(parseDataUrl('data:application/pdf;base64,YWI', pdfOptions).data.toString()).toBe('ab');
  });

  it.each([
    ['missing base64 flag', `data:application/pdf,${payload}`],
    ['not a data URL', 'https://example.com/a.pdf'],
    ['no comma', 'data:application/pdf;base64'],
    ['non-base64 characters', 'data:application/pdf;base64,@@@@'],
    ['whitespace in payload', 'data:application/pdf;base64,YWJj ZGVm'],
    ['url-safe alphabet', 'data:application/pdf;base64,YW_-'],
    ['padding in the middle', 'data:application/pdf;base64,YQ==YWJj'],
    ['bad padded length', 'data:application/pdf;base64,YWJ=='],
    ['impossible length', 'data:application/pdf;base64,YWJjZ'],
    ['empty payload', 'data:application/pdf;base64,'],
    ['missing media type', `data:;base64,${payload}`],
    ['wrong media type', `data:text/html;base64,${payload}`],
    ['image for a pdf field', `data:image/png;base64,${payload}`],
  ])('rejects %s with invalid_request on the caller param', (_label, url) => {
    const error = errorOf(() => parseDataUrl(url, pdfOptions));
    expect(error.code).toBe('invalid_request');
    expect(error.param).toBe('document.document_url');
  });

  it('rejects a PDF in an image field', () => {
    const error = errorOf(() => parseDataUrl(`data:application/pdf;base64,${payload}`, imageOptions));
    expect([error.code, error.param]).toEqual(['invalid_request', 'document.image_url']);
  });

  it('rejects over-size payloads with payload_too_large before decoding', () => {
    const big = Buffer.alloc(1025).toString('base64');
    const error = errorOf(() => parseDataUrl(`data:application/pdf;base64,${big}`, pdfOptions));
    expect([error.code, error.param]).toEqual(['payload_too_large', 'document.document_url']);
    const exact = Buffer.alloc(1024).toString('base64');
    expect(parseDataUrl(`data:application/pdf;base64,${exact}`, pdfOptions).data.length).toBe(1024);
  });
});
