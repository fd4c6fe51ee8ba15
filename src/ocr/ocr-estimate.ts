import { costOf } from '../billing/pricing.js';
import type { Nano } from '../billing/money.js';
import type { CatalogModel } from '../catalog/model-types.js';
import type { OcrOptions } from '../providers/ocr/ocr-types.js';
import type { DocumentSource } from './ocr-document.js';
import { pagesToProcess } from './ocr-schema.js';
import { countPdfPages } from './pdf-page-count.js';

/** Pages assumed for a document not yet downloaded (the hold is clamped to the balance anyway). */
export const REMOTE_DOCUMENT_PAGES = 10;

/** Estimated cost of recognising a document, nano-USD, for the admission hold; only requested `pages` count. */
export async function estimateOcrCost(model: CatalogModel, source: DocumentSource, options: OcrOptions = {}): Promise<Nano> {
  if (!('inline' in source)) return costOf(model, { page: Math.min(REMOTE_DOCUMENT_PAGES, options.pages?.length ?? REMOTE_DOCUMENT_PAGES) });
  const pages = source.inline.kind === 'pdf' ? await countPdfPages(source.inline.data) : 1;
  return costOf(model, { page: pagesToProcess(pages, options) });
}
