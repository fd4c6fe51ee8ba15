import { loadSharp } from '../../platform/util/index.js';
import type { ImageSize } from './local-image-size.js';
import { encodeImage, type LocalImageFormat } from './local-image-encode.js';

/**
 * Images up to this many pixels are a flat colour (a few hundred bytes). Larger ones are
 * deterministic grayscale noise, which PNG cannot compress: about one byte per pixel, so
 * 2048x2048 gives a ~4.2 MB PNG and 1536x1024 ~1.6 MB. This lets benchmarks exercise both
 * tiny results and a ~4 MB result through the queue.
 */
export const INSTANT_FLAT_MAX_PIXELS = 1024 * 1024;

const MAX_CACHED = 16;
const cache = new Map<string, Promise<string>>();

/** xorshift32: deterministic, fast and good enough to defeat PNG compression. */
function noise(length: number): Buffer {
  const out = Buffer.allocUnsafe(length);
  let state = 0x2545f491;
  for (let i = 0; i < length; i += 1) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    out[i] = state & 0xff;
  }
  return out;
}

async function render(size: ImageSize, format: LocalImageFormat | undefined): Promise<string> {
  const sharp = await loadSharp();
  const { width, height } = size;
  const png =
    width * height <= INSTANT_FLAT_MAX_PIXELS
      ? await sharp({ create: { width, height, channels: 3, background: { r: 64, g: 128, b: 192 } } })
          .png()
          .toBuffer()
      : await sharp(noise(width * height), { raw: { width, height, channels: 1 } })
          // Without this sharp writes sRGB: three identical channels, 11.7 MB at 2048x2048.
          .toColourspace('b-w')
          .png({ compressionLevel: 1 })
          .toBuffer();
  return (await encodeImage(png, format)).toString('base64');
}

/**
 * The `instant` model's image for a size, as base64: rendered once per size and format and then
 * served from memory, so the queue path can be measured without rendering cost.
 */
export function instantImage(size: ImageSize, format: LocalImageFormat | undefined): Promise<string> {
  const key = `${size.width}x${size.height}:${format ?? 'png'}`;
  let entry = cache.get(key);
  if (entry === undefined) {
    if (cache.size >= MAX_CACHED) {
      const oldest = cache.keys().next().value;
      if (oldest !== undefined) cache.delete(oldest);
    }
    entry = render(size, format);
    cache.set(key, entry);
    entry.catch(() => cache.delete(key));
  }
  return entry;
}
