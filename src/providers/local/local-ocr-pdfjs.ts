import { createRequire } from 'node:module';
import { dirname, join, sep } from 'node:path';
import type { PDFDocumentProxy } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { GatewayError } from '../../platform/errors/index.js';
import { loadPdfjs } from '../../platform/util/index.js';

/** Largest decoded image inside a PDF, in pixels; bigger ones are skipped by pdfjs. */
const MAX_EMBEDDED_IMAGE_PIXELS = 40_000_000;

let assetFolders: { fonts: string; cmaps: string; wasm: string; iccs: string } | null = null;

/** pdfjs-dist's bundled data folders; pdfjs reads them from disk in Node (trailing slash required). */
function pdfjsAssets(): { fonts: string; cmaps: string; wasm: string; iccs: string } {
  if (assetFolders === null) {
    const root = dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json'));
    const folder = (name: string): string => join(root, name) + sep;
    assetFolders = { fonts: folder('standard_fonts'), cmaps: folder('cmaps'), wasm: folder('wasm'), iccs: folder('iccs') };
  }
  return assetFolders;
}

/**
 * Opens a PDF from memory with pdfjs's legacy (Node) build. No URL is given and every data
 * folder is local, so pdfjs never touches the network; eval and system fonts are off.
 * Anything pdfjs cannot parse is the client's document at fault.
 */
export async function openPdf(data: Buffer): Promise<PDFDocumentProxy> {
  const assets = pdfjsAssets();
  const { getDocument } = await loadPdfjs();
  const task = getDocument({
    // pdfjs takes ownership of (and may detach) the array it gets, so hand it a copy.
    data: new Uint8Array(data),
    isEvalSupported: false,
    useSystemFonts: false,
    disableFontFace: true,
    useWorkerFetch: false,
    standardFontDataUrl: assets.fonts,
    cMapUrl: assets.cmaps,
    cMapPacked: true,
    wasmUrl: assets.wasm,
    iccUrl: assets.iccs,
    maxImageSize: MAX_EMBEDDED_IMAGE_PIXELS,
    verbosity: 0,
  });
  try {
    return await task.promise;
  } catch (error) {
    await task.destroy().catch(() => undefined);
    throw new GatewayError('invalid_request', 'The document is not a readable PDF', { param: 'document', cause: error });
  }
}
