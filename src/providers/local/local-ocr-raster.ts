import { loadSharp } from '../../platform/util/index.js';
import type { PDFPageProxy } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { GatewayError } from '../../platform/errors/index.js';

/** Resolution pages are rasterized at for OCR, unless that would exceed the side bound. */
export const OCR_RASTER_DPI = 200;
/** Longest side of a rasterized page, in pixels: bounds memory and OCR time per page. */
export const MAX_RASTER_SIDE = 2400;

/** The pixel geometry a page is reported and rasterized at. */
export interface PageGeometry {
  dpi: number;
  width: number;
  height: number;
  scale: number;
}

/** Picks 200 dpi, or less when the page is so large that it would exceed MAX_RASTER_SIDE. */
export function pageGeometry(widthPt: number, heightPt: number): PageGeometry {
  const longest = Math.max(widthPt, heightPt, 1);
  const dpi = Math.max(1, Math.min(OCR_RASTER_DPI, Math.floor((MAX_RASTER_SIDE * 72) / longest)));
  const scale = dpi / 72;
  return {
    dpi,
    scale,
    width: Math.max(1, Math.round(widthPt * scale)),
    height: Math.max(1, Math.round(heightPt * scale)),
  };
}

/** What pdfjs's own canvas factory hands out (typed loosely by pdfjs itself). */
interface FactoryCanvas {
  context: {
    getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray };
  };
}

interface CanvasFactoryLike {
  create(width: number, height: number): FactoryCanvas & { canvas: unknown };
  destroy(canvasAndContext: unknown): void;
}

function isCanvasFactory(value: unknown): value is CanvasFactoryLike {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  return typeof record['create'] === 'function' && typeof record['destroy'] === 'function';
}

/**
 * Renders a page to a PNG on a white background. The canvas comes from pdfjs's own factory:
 * pdfjs draws with its own copy of the canvas library, and mixing native canvas instances of
 * two versions is not safe.
 */
export async function rasterizePage(page: PDFPageProxy, factory: unknown, geometry: PageGeometry): Promise<Buffer> {
  const sharp = await loadSharp();
  if (!isCanvasFactory(factory)) {
    throw new GatewayError('internal_error', 'pdfjs did not provide a canvas factory');
  }
  const viewport = page.getViewport({ scale: geometry.scale });
  const width = Math.round(viewport.width);
  const height = Math.round(viewport.height);
  const target = factory.create(width, height);
  try {
    const renderParams = {
      canvas: target.canvas,
      canvasContext: target.context,
      viewport,
      background: '#ffffff',
    } as unknown as Parameters<PDFPageProxy['render']>[0];
    await page.render(renderParams).promise;
    const pixels = target.context.getImageData(0, 0, width, height).data;
    return await sharp(Buffer.from(pixels.buffer, pixels.byteOffset, pixels.byteLength), {
      raw: { width, height, channels: 4 },
    })
      .flatten({ background: '#ffffff' })
      .grayscale()
      // Tell the OCR engine the real resolution; it guesses badly from a PNG without one.
      .withDensity(geometry.dpi)
      .png()
      .toBuffer();
  } catch (error) {
    if (error instanceof GatewayError) throw error;
    throw new GatewayError('invalid_request', 'A page of the PDF could not be rendered', {
      param: 'document',
      cause: error,
    });
  } finally {
    factory.destroy(target);
  }
}
