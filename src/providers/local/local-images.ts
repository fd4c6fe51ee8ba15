import { GatewayError } from '../../platform/errors/index.js';
import type {
  ImageEditCall,
  ImageGenerateCall,
  ImageResult,
  ImagesCapability,
} from '../images/image-types.js';
import { throwIfCancelled } from './local-image-cancel.js';
import { composeEdit } from './local-image-edit.js';
import { encodeImage } from './local-image-encode.js';
import { instantImage } from './local-image-instant.js';
import { parseImageSize } from './local-image-size.js';
import { renderPromptImage } from './render-prompt-image.js';

/** Upstream model names the local image provider serves. */
export const LOCAL_IMAGE_MODELS = ['canvas', 'instant'] as const;

/** Most images one call may ask for (OpenAI's own limit is 10). */
export const MAX_LOCAL_IMAGES_PER_CALL = 10;

function checkCount(n: number): void {
  if (!Number.isInteger(n) || n < 1 || n > MAX_LOCAL_IMAGES_PER_CALL) {
    throw new GatewayError('invalid_request', `n must be an integer between 1 and ${MAX_LOCAL_IMAGES_PER_CALL}`, {
      param: 'n',
    });
  }
}

function checkModel(upstreamModel: string): 'canvas' | 'instant' {
  if (upstreamModel === 'canvas' || upstreamModel === 'instant') return upstreamModel;
  throw new GatewayError('model_not_found', `The local image provider has no model '${upstreamModel}'`, {
    param: 'model',
  });
}

function result(images: string[]): ImageResult {
  return {
    images: images.map((b64_json) => ({ b64_json })),
    usage: { images: images.length, textInputTokens: 0, imageInputTokens: 0, imageOutputTokens: 0 },
  };
}

async function generate(call: ImageGenerateCall): Promise<ImageResult> {
  const model = checkModel(call.upstreamModel);
  checkCount(call.n);
  const size = parseImageSize(call.size);
  const images: string[] = [];
  for (let variant = 0; variant < call.n; variant += 1) {
    throwIfCancelled(call.signal);
    if (model === 'instant') {
      images.push(await instantImage(size, call.outputFormat));
      continue;
    }
    const png = await renderPromptImage({ prompt: call.prompt, ...size, variant });
    images.push((await encodeImage(png, call.outputFormat)).toString('base64'));
  }
  return result(images);
}

async function edit(call: ImageEditCall): Promise<ImageResult> {
  const model = checkModel(call.upstreamModel);
  checkCount(call.n);
  const size = parseImageSize(call.size);
  if (call.images.length === 0) {
    throw new GatewayError('invalid_request', 'At least one image is required for an edit', { param: 'image' });
  }
  const images: string[] = [];
  for (let variant = 0; variant < call.n; variant += 1) {
    throwIfCancelled(call.signal);
    if (model === 'instant') {
      images.push(await instantImage(size, call.outputFormat));
      continue;
    }
    const png = await composeEdit({
      prompt: call.prompt,
      size,
      variant,
      references: call.images,
      ...(call.mask === undefined ? {} : { mask: call.mask }),
    });
    images.push((await encodeImage(png, call.outputFormat)).toString('base64'));
  }
  return result(images);
}

/**
 * The local image model (provider kind `local`), no network and no credentials.
 * - `canvas`: renders a real PNG per image from the prompt (seeded colours, shapes, wrapped
 *   text), distinct per index; edits tile the reference images, apply the mask (transparent
 *   areas show the prompt rendering) and add the prompt as a caption.
 * - `instant`: a cached image per size (see INSTANT_FLAT_MAX_PIXELS), for queue benchmarks.
 * Sizes are `WIDTHxHEIGHT` with sides 16..2048, or `auto` (1024x1024). Usage counts images.
 */
export function createLocalImages(): ImagesCapability {
  return { generate, edit };
}
