import { costOf } from '../billing/pricing.js';
import type { Nano } from '../billing/money.js';
import type { CatalogModel } from '../catalog/model-types.js';
import type { ImageJobParams } from '../queue/job-types.js';

/**
 * Output tokens of one image at the largest size and highest quality gpt-image models
 * produce (1536x1024 high = 6,240 tokens), so a token-priced hold is an upper bound.
 */
export const MAX_IMAGE_OUTPUT_TOKENS = 6_240;
/** Input tokens one reference image can cost at most (high fidelity). */
export const MAX_IMAGE_INPUT_TOKENS = 6_240;

/**
 * Worst-case cost of an image request, nano-USD, for the admission hold: per-image price × n,
 * or for token-priced models the prompt (a token is rarely shorter than a character), the
 * reference images and n outputs at their bounds.
 */
export function estimateImageCost(model: CatalogModel, params: ImageJobParams, referenceImages = 0): Nano {
  return costOf(model, {
    image: params.n,
    text_input: params.prompt.length,
    image_input: referenceImages * MAX_IMAGE_INPUT_TOKENS,
    image_output: params.n * MAX_IMAGE_OUTPUT_TOKENS,
  });
}
