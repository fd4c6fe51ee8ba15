import { costOf, formatUsd, type Nano } from '../billing/index.js';
import type { CatalogModel } from '../catalog/index.js';
import type { OcrOptions } from '../providers/index.js';
import type { DocumentSource } from './ocr-document.js';
import { pagesToProcess } from './ocr-schema.js';
import { countPdfPages } from './pdf-page-count.js';

/**
 * Pages held for a document not yet downloaded. Once it is downloaded its real page count
 * is held instead (see `pagesOf`), so this only decides the first refusal.
 */
export const REMOTE_DOCUMENT_PAGES = 10;

/**
 * Pages of a downloaded or inline document that will be processed: PDFs by their page tree, an
 * image is one page; only the requested `pages` count.
 */
export async function pagesOf(document: { kind: string; data: Buffer }, options: OcrOptions = {}): Promise<number> {
  return pagesToProcess(document.kind === 'pdf' ? await countPdfPages(document.data) : 1, options);
}

/** Pages a request's hold covers before any download. */
export async function estimateOcrPages(source: DocumentSource, options: OcrOptions = {}): Promise<number> {
  if ('inline' in source) return pagesOf(source.inline, options);
  return Math.min(REMOTE_DOCUMENT_PAGES, options.pages?.length ?? REMOTE_DOCUMENT_PAGES);
}

/** Worst-case cost of recognising `pages` pages, nano-USD, for the admission hold. */
export function ocrCostOfPages(model: CatalogModel, pages: number): Nano {
  return costOf(model, { page: pages });
}

/** Estimated cost of recognising a document, nano-USD, for the admission hold. */
export async function estimateOcrCost(model: CatalogModel, source: DocumentSource, options: OcrOptions = {}): Promise<Nano> {
  return ocrCostOfPages(model, await estimateOcrPages(source, options));
}

/** Says how many pages would fit into `room` nano-USD, for a refusal. */
export function describeOcrFit(model: CatalogModel, pages: number, room: Nano): string {
  const price = model.prices.page;
  const head = `This document can cost up to $${formatUsd(ocrCostOfPages(model, pages))} (${pages} page${pages === 1 ? '' : 's'}).`;
  let fits = pages;
  while (fits > 0 && ocrCostOfPages(model, fits) > room) fits = price === undefined || price === 0n ? 0 : Math.min(fits - 1, Math.floor(Number((room * 10n ** 9n) / price)));
  if (fits <= 0) return `${head} Not even one page fits the $${formatUsd(room > 0n ? room : 0n)} left.`;
  return `${head} At most ${fits} page${fits === 1 ? '' : 's'} fit the $${formatUsd(room)} left.`;
}
