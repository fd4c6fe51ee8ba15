import { loadSharp } from '../../platform/util/index.js';

/** Output encodings the image endpoints accept. */
export type LocalImageFormat = 'png' | 'jpeg' | 'webp';

/**
 * Converts a rendered PNG to the requested format; PNG passes through untouched. sharp does
 * the work on its own threads, so the event loop only waits.
 */
export async function encodeImage(png: Buffer, format: LocalImageFormat | undefined): Promise<Buffer> {
  if (format === undefined || format === 'png') return png;
  const sharp = await loadSharp();
  if (format === 'jpeg') return sharp(png).flatten({ background: '#ffffff' }).jpeg({ quality: 85 }).toBuffer();
  return sharp(png).webp({ quality: 85 }).toBuffer();
}
