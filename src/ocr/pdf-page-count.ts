import { loadPdfjs } from '../platform/util/index.js';

/** Upper bound on pages counted for a hold. */
const MAX_COUNTED_PAGES = 1_000;

/**
 * Pages of a PDF, read from its page tree with pdfjs (only the cross-reference table and the
 * catalog are parsed, no page content). Modern PDFs keep page objects in compressed object
 * streams, so scanning the bytes for `/Type /Page` undercounts. Unreadable → 1 (the worker
 * reports the real error).
 */
export async function countPdfPages(data: Buffer): Promise<number> {
  const { getDocument } = await loadPdfjs();
  const task = getDocument({ data: new Uint8Array(data), isEvalSupported: false, useSystemFonts: false, disableFontFace: true, verbosity: 0 });
  try {
    const doc = await task.promise;
    return Math.min(MAX_COUNTED_PAGES, Math.max(1, doc.numPages));
  } catch {
    return 1;
  } finally {
    await task.destroy().catch(() => undefined);
  }
}
