import { afterAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { createLocalOcr, terminateLocalOcr } from '../../../src/providers/local/local-ocr.js';
import { GatewayError } from '../../../src/platform/errors/gateway-error.js';
import type { OcrDocument } from '../../../src/providers/ocr/ocr-types.js';
import { renderTextPng } from '../../fixtures/documents/test-images.js';
import { blankPdf, scannedPdf, textPdf } from '../../fixtures/documents/test-pdfs.js';

const ocr = createLocalOcr();
const signal = new AbortController().signal;

afterAll(async () => {
  await terminateLocalOcr();
});

function recognize(document: OcrDocument) {
  return ocr.recognize({ upstreamModel: 'reader', document, signal });
}

/** Upper-cased words with punctuation stripped, so OCR noise like `4217.` still matches. */
function words(markdown: string): string[] {
  return markdown
    .toUpperCase()
    .split(/\s+/)
    .map((w) => w.replace(/[^A-Z0-9]/g, ''))
    .filter(Boolean);
}

async function expectInvalidDocument(promise: Promise<unknown>): Promise<void> {
  const error: unknown = await promise.catch((e: unknown) => e);
  expect(error).toBeInstanceOf(GatewayError);
  expect((error as GatewayError).code).toBe('invalid_request');
  expect((error as GatewayError).param).toBe('document');
}

describe('local OCR of PDFs with a text layer', () => {
  it('returns each page as markdown with its words', async () => {
    const pdf = await textPdf([['Farebox invoice 4217', 'Total due 99 USD'], ['Second page text']]);
    const result = await recognize({ kind: 'pdf', data: pdf });
    expect(result.pages).toHaveLength(2);
    expect(result.pages[0]?.markdown).toBe('Farebox invoice 4217\nTotal due 99 USD');
    expect(result.pages[1]?.markdown).toBe('Second page text');
    expect(result.pages.map((p) => p.index)).toEqual([0, 1]);
    expect(result.pages[0]?.dimensions).toEqual({ dpi: 200, width: 1700, height: 2200 });
    expect(result.pages[0]?.images).toEqual([]);
    expect(result.usage).toEqual({ pagesProcessed: 2, docSizeBytes: pdf.length });
  });
});

describe('local OCR with tesseract', () => {
  it('reads the words of a rendered PNG', async () => {
    const png = await renderTextPng(['FAREBOX INVOICE 4217']);
    const result = await recognize({ kind: 'image', data: png, contentType: 'image/png' });
    expect(result.pages).toHaveLength(1);
    expect(words(result.pages[0]?.markdown ?? '')).toEqual(expect.arrayContaining(['FAREBOX', 'INVOICE', '4217']));
    const meta = await sharp(png).metadata();
    expect(result.pages[0]?.dimensions).toMatchObject({ width: meta.width, height: meta.height });
    expect(result.usage).toEqual({ pagesProcessed: 1, docSizeBytes: png.length });
  });

  it('reads a JPEG too', async () => {
    const jpeg = await sharp(await renderTextPng(['PREPAID GATEWAY'])).jpeg().toBuffer();
    const result = await recognize({ kind: 'image', data: jpeg, contentType: 'image/jpeg' });
    expect(words(result.pages[0]?.markdown ?? '')).toEqual(expect.arrayContaining(['PREPAID', 'GATEWAY']));
  });

  it('rasterizes and reads a PDF page without a text layer', async () => {
    const pdf = await scannedPdf(await renderTextPng(['SCANNED RECEIPT 8810']));
    const result = await recognize({ kind: 'pdf', data: pdf });
    expect(result.pages).toHaveLength(1);
    expect(words(result.pages[0]?.markdown ?? '')).toEqual(expect.arrayContaining(['SCANNED', 'RECEIPT', '8810']));
  });
});

describe('local OCR input errors', () => {
  it('rejects bytes that are not a PDF', async () => {
    await expectInvalidDocument(recognize({ kind: 'pdf', data: Buffer.from('%PDF-1.7 but not really') }));
  });

  it('rejects bytes that are not an image', async () => {
    await expectInvalidDocument(
      recognize({ kind: 'image', data: Buffer.from('not an image at all'), contentType: 'image/png' }),
    );
  });

  it('rejects image formats other than png, jpeg and webp', async () => {
    const gif = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#fff' } }).gif().toBuffer();
    await expectInvalidDocument(recognize({ kind: 'image', data: gif, contentType: 'image/png' }));
  });

  it('rejects a truncated PDF', async () => {
    const pdf = await textPdf([['hello']]);
    await expectInvalidDocument(recognize({ kind: 'pdf', data: pdf.subarray(0, 40) }));
  });

  it('returns empty markdown for blank pages', async () => {
    const result = await recognize({ kind: 'pdf', data: await blankPdf(2) });
    expect(result.pages.map((p) => p.markdown)).toEqual(['', '']);
  });
});
