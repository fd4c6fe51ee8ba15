import { imageSize } from 'image-size';

/** An image's size in pixels. */
export interface Dimensions {
  readonly width: number;
  readonly height: number;
}

/**
 * Most base64 characters decoded to find an image's size: PNG, GIF and WebP carry it in their
 * first bytes; a JPEG's size marker may sit behind metadata, so a generous prefix is read.
 */
const HEADER_BASE64_CHARS = 174_764; // 128 KiB of bytes

/** The size of an image given as a base64 data URL, read from its header; undefined when unknown. */
export function dataUrlDimensions(url: string): Dimensions | undefined {
  if (!url.startsWith('data:')) return undefined;
  const comma = url.indexOf(',');
  if (comma < 0) return undefined;
  const head = url.slice(comma + 1, comma + 1 + HEADER_BASE64_CHARS);
  try {
    const { width, height } = imageSize(Buffer.from(head, 'base64'));
    return width > 0 && height > 0 ? { width, height } : undefined;
  } catch {
    return undefined;
  }
}

/** OpenAI's tiled formula (GPT-4o, GPT-4.1, o-series, high detail): 85 + 170 per 512-px tile. */
export function openAiTileTokens({ width, height }: Dimensions): number {
  const fit = Math.min(1, 2048 / Math.max(width, height));
  let w = width * fit;
  let h = height * fit;
  const shortest = Math.min(w, h);
  if (shortest > 768) {
    w = (w * 768) / shortest;
    h = (h * 768) / shortest;
  }
  return 85 + 170 * Math.ceil(w / 512) * Math.ceil(h / 512);
}

/** Most 32-px patches OpenAI's patch formula keeps (larger images are scaled down to fit). */
const MAX_PATCHES = 1536;
/** The largest per-model patch multiplier OpenAI applies (GPT-4.1-nano: 2.46). */
const PATCH_MULTIPLIER = 2.5;

/** OpenAI's patch formula (GPT-4.1-mini and -nano, o4-mini), at its largest multiplier. */
export function openAiPatchTokens({ width, height }: Dimensions): number {
  const patches = Math.min(MAX_PATCHES, Math.ceil(width / 32) * Math.ceil(height / 32));
  return Math.ceil(patches * PATCH_MULTIPLIER);
}

/** Anthropic's formula: width × height / 750, after scaling to at most 1,568 px and ~1.15 MP. */
export function anthropicImageTokens({ width, height }: Dimensions): number {
  const scale = Math.min(1, 1568 / Math.max(width, height), Math.sqrt(1_150_000 / (width * height)));
  return Math.ceil((width * scale * height * scale) / 750);
}

/** What any image can cost at most, whatever its size: the patch formula's ceiling. */
export const MAX_IMAGE_TOKENS = Math.ceil(MAX_PATCHES * PATCH_MULTIPLIER);

/**
 * An upper bound of the prompt tokens one image costs at any vendor served: the largest of
 * the vendors' own formulas on its real size, or the largest any image can cost when its
 * size is unknown (a remote URL, an unreadable header).
 */
export function imageTokenBound(dimensions: Dimensions | undefined): number {
  if (dimensions === undefined) return MAX_IMAGE_TOKENS;
  return Math.max(openAiTileTokens(dimensions), openAiPatchTokens(dimensions), anthropicImageTokens(dimensions));
}
