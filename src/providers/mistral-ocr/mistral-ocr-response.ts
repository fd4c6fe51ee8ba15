import { GatewayError } from '../../platform/errors/index.js';
import { arrayAt, numberAt, recordAt, stringAt } from '../http/narrow.js';
import type { OcrPage, OcrResult } from '../ocr/ocr-types.js';

function garbage(why: string): GatewayError {
  return new GatewayError('upstream_error', `The OCR provider answered with an unexpected body: ${why}`);
}

function mapDimensions(page: unknown): OcrPage['dimensions'] {
  const dims = recordAt(page, 'dimensions');
  if (dims === undefined) return null;
  const dpi = numberAt(dims, 'dpi');
  const height = numberAt(dims, 'height');
  const width = numberAt(dims, 'width');
  return dpi === undefined || height === undefined || width === undefined ? null : { dpi, height, width };
}

function mapPage(page: unknown, position: number): OcrPage {
  const markdown = stringAt(page, 'markdown');
  if (markdown === undefined) throw garbage(`page ${position} has no markdown`);
  return {
    index: numberAt(page, 'index') ?? position,
    markdown,
    images: arrayAt(page, 'images') ?? [],
    dimensions: mapDimensions(page),
  };
}

/**
 * Maps Mistral's OCR response (`{pages: [{index, markdown, images, dimensions}], model,
 * usage_info: {pages_processed, doc_size_bytes}}`). `doc_size_bytes` may be null upstream;
 * the size of what was sent stands in for it.
 */
export function fromOcrResponse(body: unknown, sentBytes: number): OcrResult {
  const pages = arrayAt(body, 'pages');
  if (pages === undefined) throw garbage('no pages array');
  const usage = recordAt(body, 'usage_info');
  return {
    pages: pages.map(mapPage),
    usage: {
      pagesProcessed: numberAt(usage, 'pages_processed') ?? pages.length,
      docSizeBytes: numberAt(usage, 'doc_size_bytes') ?? sentBytes,
    },
  };
}
