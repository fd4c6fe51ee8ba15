import type { PDFPageProxy } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { GatewayError } from '../../platform/errors/index.js';
import type { OcrPage } from '../ocr/ocr-types.js';
import { throwIfCancelled } from './local-image-cancel.js';
import { ocrTextToMarkdown, runsToMarkdown, type TextRun } from './local-ocr-markdown.js';
import { openPdf } from './local-ocr-pdfjs.js';
import { pageGeometry, rasterizePage } from './local-ocr-raster.js';

/** Most pages one document may have; longer documents are refused before any work. */
export const MAX_OCR_PAGES = 1000;

/** How a page without a text layer gets read. */
export type PngRecognizer = (png: Buffer) => Promise<string>;

async function textRuns(page: PDFPageProxy): Promise<TextRun[]> {
  const content = await page.getTextContent();
  const runs: TextRun[] = [];
  for (const item of content.items) {
    if (!('str' in item)) continue;
    runs.push({
      str: item.str,
      x: item.transform[4] ?? 0,
      y: item.transform[5] ?? 0,
      width: item.width,
      height: item.height || Math.abs(item.transform[3] ?? 0),
    });
  }
  return runs;
}

async function readPage(
  page: PDFPageProxy,
  canvasFactory: unknown,
  recognize: PngRecognizer,
): Promise<OcrPage> {
  const base = page.getViewport({ scale: 1 });
  const geometry = pageGeometry(base.width, base.height);
  let markdown = runsToMarkdown(await textRuns(page));
  // A page with no text layer is a scan (or a drawing): rasterize it and OCR the pixels.
  if (markdown === '') markdown = ocrTextToMarkdown(await recognize(await rasterizePage(page, canvasFactory, geometry)));
  return {
    index: page.pageNumber - 1,
    markdown,
    images: [],
    dimensions: { dpi: geometry.dpi, height: geometry.height, width: geometry.width },
  };
}

/** 1-based page numbers to read: the requested 0-based indexes, or every page; 400 for a page the PDF lacks. */
export function pageNumbersToRead(numPages: number, requested: readonly number[] | undefined): number[] {
  if (requested === undefined) return Array.from({ length: numPages }, (_, i) => i + 1);
  const missing = requested.find((index) => index >= numPages);
  if (missing !== undefined) {
    throw new GatewayError('invalid_request', `pages: page ${missing} does not exist; the document has ${numPages} page(s), indexed from 0`, {
      param: 'pages',
    });
  }
  return requested.map((index) => index + 1);
}

/**
 * Reads the pages of a PDF into markdown (every page, or the requested 0-based indexes): the
 * text layer where there is one, OCR of the rasterized page otherwise. Dimensions are the page
 * in pixels at the raster dpi.
 */
export async function readPdf(data: Buffer, recognize: PngRecognizer, signal: AbortSignal, requested?: readonly number[]): Promise<OcrPage[]> {
  const pdf = await openPdf(data);
  try {
    if (pdf.numPages > MAX_OCR_PAGES) {
      throw new GatewayError('invalid_request', `The PDF has ${pdf.numPages} pages; at most ${MAX_OCR_PAGES} are accepted`, {
        param: 'document',
      });
    }
    const pages: OcrPage[] = [];
    for (const number of pageNumbersToRead(pdf.numPages, requested)) {
      throwIfCancelled(signal);
      const page = await pdf.getPage(number).catch((error: unknown) => {
        throw new GatewayError('invalid_request', `Page ${number} of the PDF is unreadable`, {
          param: 'document',
          cause: error,
        });
      });
      try {
        pages.push(await readPage(page, pdf.canvasFactory, recognize));
      } finally {
        page.cleanup();
      }
    }
    return pages;
  } finally {
    await pdf.destroy().catch(() => undefined);
  }
}
