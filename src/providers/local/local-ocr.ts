import { GatewayError } from '../../platform/errors/index.js';
import type { OcrCall, OcrCapability, OcrPage, OcrResult } from '../ocr/ocr-types.js';
import { throwIfCancelled } from './local-image-cancel.js';
import { normaliseOcrImage } from './local-ocr-image.js';
import { ocrTextToMarkdown } from './local-ocr-markdown.js';
import { pageNumbersToRead, readPdf } from './local-ocr-pdf.js';
import { recognizePng, type TesseractOptions } from './local-ocr-tesseract.js';

export { terminateLocalOcr } from './local-ocr-tesseract.js';

/** Options of the local OCR model. */
export interface LocalOcrOptions {
  /** Folder with `eng.traineddata.gz`; defaults to the @tesseract.js-data/eng package. */
  langPath?: string;
}

async function readImage(data: Buffer, tesseract: TesseractOptions, signal: AbortSignal): Promise<OcrPage[]> {
  const image = await normaliseOcrImage(data);
  throwIfCancelled(signal);
  const text = await recognizePng(image.png, tesseract);
  return [
    {
      index: 0,
      markdown: ocrTextToMarkdown(text),
      images: [],
      dimensions: { dpi: image.dpi, height: image.height, width: image.width },
    },
  ];
}

/**
 * The local OCR model (provider kind `local`, upstream model `reader`), no network: PDF text
 * layers are read with pdfjs; scanned pages and images go through tesseract.js with the
 * bundled English data. One tesseract worker is shared per process; stop it on shutdown with
 * `terminateLocalOcr()`.
 */
export function createLocalOcr(opts: LocalOcrOptions = {}): OcrCapability {
  const tesseract: TesseractOptions = opts.langPath === undefined ? {} : { langPath: opts.langPath };
  const recognize = (png: Buffer): Promise<string> => recognizePng(png, tesseract);
  return {
    async recognize(call: OcrCall): Promise<OcrResult> {
      if (call.upstreamModel !== 'reader') {
        throw new GatewayError('model_not_found', `The local OCR provider has no model '${call.upstreamModel}'`, {
          param: 'model',
        });
      }
      throwIfCancelled(call.signal);
      const { document } = call;
      const requested = call.options?.pages;
      // An image is a one-page document: only index 0 exists.
      if (document.kind === 'image') pageNumbersToRead(1, requested);
      const pages =
        document.kind === 'pdf'
          ? await readPdf(document.data, recognize, call.signal, requested)
          : await readImage(document.data, tesseract, call.signal);
      return { pages, usage: { pagesProcessed: pages.length, docSizeBytes: document.data.length } };
    },
  };
}
