import { GatewayError } from '../../platform/errors/index.js';

/** Pixel dimensions of an output image. */
export interface ImageSize {
  width: number;
  height: number;
}

/** Largest side the local image model renders, in pixels. */
export const MAX_LOCAL_IMAGE_SIDE = 2048;
/** Smallest side the local image model renders, in pixels. */
export const MIN_LOCAL_IMAGE_SIDE = 16;

const DEFAULT_SIZE: ImageSize = { width: 1024, height: 1024 };
const SIZE_PATTERN = /^([1-9][0-9]{0,4})x([1-9][0-9]{0,4})$/;

/**
 * Parses an OpenAI-style `size` (`WIDTHxHEIGHT`, or `auto`/absent for 1024x1024). Each side
 * must lie in [16, 2048]; anything else is the client's mistake, reported on `size`.
 */
export function parseImageSize(size: string | undefined): ImageSize {
  if (size === undefined || size === 'auto') return { ...DEFAULT_SIZE };
  const match = SIZE_PATTERN.exec(size);
  if (!match) {
    throw new GatewayError('invalid_request', `Invalid size '${size.slice(0, 40)}': expected WIDTHxHEIGHT or auto`, {
      param: 'size',
    });
  }
  const width = Number(match[1]);
  const height = Number(match[2]);
  const inRange = (side: number): boolean => side >= MIN_LOCAL_IMAGE_SIDE && side <= MAX_LOCAL_IMAGE_SIDE;
  if (!inRange(width) || !inRange(height)) {
    throw new GatewayError(
      'invalid_request',
      `Invalid size '${size}': each side must be between ${MIN_LOCAL_IMAGE_SIDE} and ${MAX_LOCAL_IMAGE_SIDE} pixels`,
      { param: 'size' },
    );
  }
  return { width, height };
}
