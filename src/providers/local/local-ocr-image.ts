import { loadSharp } from '../../platform/util/index.js';
import { GatewayError } from '../../platform/errors/index.js';

/** An image ready for OCR, with the geometry reported back to clients. */
export interface NormalisedImage {
  png: Buffer;
  width: number;
  height: number;
  dpi: number;
}

/** Largest side fed to the OCR engine; bigger inputs are scaled down to bound CPU and memory. */
export const MAX_OCR_IMAGE_SIDE = 4000;
const MAX_INPUT_PIXELS = 60_000_000;
const ACCEPTED_FORMATS = new Set(['png', 'jpeg', 'webp']);
const DEFAULT_DPI = 72;
/** Tesseract refuses resolutions below 70 dpi and substitutes its own guess with a warning. */
const MIN_ENGINE_DPI = 70;

function badImage(cause?: unknown): GatewayError {
  return new GatewayError('invalid_request', 'The document is not a readable PNG, JPEG or WebP image', {
    param: 'document',
    cause,
  });
}

/**
 * Decodes a client image by its bytes (not its declared type), applies EXIF rotation,
 * flattens transparency onto white and re-encodes as grayscale PNG for the OCR engine.
 */
export async function normaliseOcrImage(data: Buffer): Promise<NormalisedImage> {
  const sharp = await loadSharp();
  let format: string | undefined;
  let density: number | undefined;
  try {
    const meta = await sharp(data, { limitInputPixels: MAX_INPUT_PIXELS }).metadata();
    format = meta.format;
    density = meta.density;
  } catch (error) {
    throw badImage(error);
  }
  if (format === undefined || !ACCEPTED_FORMATS.has(format)) throw badImage();
  try {
    const { data: png, info } = await sharp(data, { limitInputPixels: MAX_INPUT_PIXELS })
      .rotate()
      .flatten({ background: '#ffffff' })
      .resize(MAX_OCR_IMAGE_SIDE, MAX_OCR_IMAGE_SIDE, { fit: 'inside', withoutEnlargement: true })
      .grayscale()
      .withDensity(Math.max(MIN_ENGINE_DPI, Math.round(density ?? DEFAULT_DPI)))
      .png()
      .toBuffer({ resolveWithObject: true });
    return { png, width: info.width, height: info.height, dpi: Math.round(density ?? DEFAULT_DPI) };
  } catch (error) {
    throw badImage(error);
  }
}
