import { costOf } from '../billing/pricing.js';
import type { Nano } from '../billing/money.js';
import type { CatalogModel } from '../catalog/model-types.js';
import type { DocumentSource } from './ocr-document.js';

/** Pages assumed for a document not yet downloaded (the hold is clamped to the balance anyway). */
export const REMOTE_DOCUMENT_PAGES = 10;
/** Upper bound on pages counted for a hold. */
const MAX_ESTIMATED_PAGES = 1_000;

/**
 * Page objects in a PDF, counted from `/Type /Page` markers without parsing the document.
 * Compressed object streams hide them, hence the fallback of one page.
 */
export function countPdfPages(data: Buffer): number {
  const matches = data.toString('latin1').match(/\/Type\s*\/Page(?![a-zA-Z])/g);
  return Math.min(MAX_ESTIMATED_PAGES, Math.max(1, matches?.length ?? 0));
}

/** Estimated cost of recognising a document, nano-USD, for the admission hold. */
export function estimateOcrCost(model: CatalogModel, source: DocumentSource): Nano {
  if (!('inline' in source)) return costOf(model, { page: REMOTE_DOCUMENT_PAGES });
  const pages = source.inline.kind === 'pdf' ? countPdfPages(source.inline.data) : 1;
  return costOf(model, { page: pages });
}
