import { type BilledUnits, costOf, formatUsd, type Nano, utf8Bytes } from '../billing/index.js';
import type { CatalogModel } from '../catalog/index.js';
import type { ImageJobParams } from '../queue/index.js';

/**
 * Output tokens of one image at the largest size and highest quality gpt-image models
 * produce (1536x1024 high = 6,240 tokens), so a token-priced hold is an upper bound.
 */
export const MAX_IMAGE_OUTPUT_TOKENS = 6_240;
/** Input tokens one reference image can cost at most (high fidelity). */
export const MAX_IMAGE_INPUT_TOKENS = 6_240;

/** The units an image request is held for (only the priced ones cost anything). */
export function imageWorstUnits(params: Pick<ImageJobParams, 'prompt'>, referenceImages: number, n: number): BilledUnits {
  return {
    image: n,
    // Every token covers at least one byte, so the prompt's UTF-8 size bounds its tokens.
    text_input: utf8Bytes(params.prompt),
    image_input: referenceImages * MAX_IMAGE_INPUT_TOKENS,
    image_output: n * MAX_IMAGE_OUTPUT_TOKENS,
  };
}

function costForImages(model: CatalogModel, params: ImageJobParams, referenceImages: number, n: number): Nano {
  return costOf(model, imageWorstUnits(params, referenceImages, n));
}

/** The largest `n` (up to the request's) whose worst case fits `room`; 0 when none does. */
export function imagesThatFit(model: CatalogModel, params: ImageJobParams, referenceImages: number, room: Nano): number {
  let fits = 0;
  // n is small (validated), so counting up is cheap.
  while (fits < params.n && costForImages(model, params, referenceImages, fits + 1) <= room) fits += 1;
  return fits;
}

/**
 * Worst-case cost of an image request, nano-USD, for the admission hold: per-image price × n,
 * or for token-priced models the prompt (bounded by its UTF-8 bytes), the reference images
 * and n outputs at their bounds.
 */
export function estimateImageCost(model: CatalogModel, params: ImageJobParams, referenceImages = 0): Nano {
  return costForImages(model, params, referenceImages, params.n);
}

/** Says how many images would fit into `room` nano-USD, for a refusal. */
export function describeImageFit(model: CatalogModel, params: ImageJobParams, referenceImages: number, room: Nano): string {
  const fits = imagesThatFit(model, params, referenceImages, room);
  const head = `This request can cost up to $${formatUsd(estimateImageCost(model, params, referenceImages))} for ${params.n} image${params.n === 1 ? '' : 's'}.`;
  if (fits === 0) return `${head} Not even one image fits the $${formatUsd(room > 0n ? room : 0n)} left.`;
  return `${head} At most ${fits} image${fits === 1 ? '' : 's'} (n=${fits}) fit the $${formatUsd(room)} left.`;
}
