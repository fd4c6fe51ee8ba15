import { loadSharp } from '../../platform/util/index.js';
import { GatewayError } from '../../platform/errors/index.js';
import type { ImageFile } from '../images/image-types.js';
import type { ImageSize } from './local-image-size.js';
import { renderCaptionOverlay, renderPromptImage } from './render-prompt-image.js';

/** Inputs of one edited image. */
export interface EditComposeInput {
  prompt: string;
  size: ImageSize;
  variant: number;
  references: ImageFile[];
  mask?: ImageFile;
}

/** Decoded pixels: sharp raw output with its geometry. */
interface RawImage {
  data: Buffer;
  width: number;
  height: number;
  channels: 1 | 2 | 3 | 4;
}

/** Upper bound on decoded input pixels, so a tiny file cannot expand into gigabytes. */
const MAX_INPUT_PIXELS = 40_000_000;

function invalidImage(param: string, cause: unknown): GatewayError {
  return new GatewayError('invalid_request', `The ${param} file is not a valid PNG, JPEG or WebP image`, {
    param,
    cause,
  });
}

/**
 * Fits the references side by side into the output: each gets an equal-width column, resized
 * to cover it, so every reference visibly contributes.
 */
async function tileReferences(references: ImageFile[], size: ImageSize): Promise<Buffer> {
  const sharp = await loadSharp();
  const columns = references.length;
  const tiles = await Promise.all(
    references.map(async (file, index) => {
      const left = Math.floor((index * size.width) / columns);
      const right = Math.floor(((index + 1) * size.width) / columns);
      try {
        const input = await sharp(file.data, { limitInputPixels: MAX_INPUT_PIXELS })
          .rotate()
          .resize(right - left, size.height, { fit: 'cover' })
          .removeAlpha()
          .png()
          .toBuffer();
        return { input, left, top: 0 };
      } catch (error) {
        throw invalidImage('image', error);
      }
    }),
  );
  return sharp({ create: { width: size.width, height: size.height, channels: 3, background: '#000000' } })
    .composite(tiles)
    .png()
    .toBuffer();
}

/** The mask's alpha channel at the output size (opaque where the mask has no alpha). */
async function maskAlpha(mask: ImageFile, size: ImageSize): Promise<RawImage> {
  const sharp = await loadSharp();
  try {
    const { data, info } = await sharp(mask.data, { limitInputPixels: MAX_INPUT_PIXELS })
      .resize(size.width, size.height, { fit: 'fill' })
      .ensureAlpha()
      .extractChannel(3)
      .raw()
      .toBuffer({ resolveWithObject: true });
    return { data, width: info.width, height: info.height, channels: 1 };
  } catch (error) {
    throw invalidImage('mask', error);
  }
}

/**
 * Produces one edited image: the references tiled into the output size; where a mask is
 * transparent, the prompt-rendered picture shows through; the prompt is drawn as a caption.
 */
export async function composeEdit(input: EditComposeInput): Promise<Buffer> {
  const sharp = await loadSharp();
  const { size, prompt, variant } = input;
  const tiled = await tileReferences(input.references, size);
  let picture = tiled;
  if (input.mask !== undefined) {
    const alpha = await maskAlpha(input.mask, size);
    // composite() leaves an alpha channel on the tiles, and sharp applies removeAlpha after
    // joinChannel within one pipeline, so strip it in a pass of its own first.
    const rgb = await sharp(tiled).removeAlpha().raw().toBuffer();
    const masked = await sharp(rgb, { raw: { width: size.width, height: size.height, channels: 3 } })
      .joinChannel(alpha.data, { raw: { width: alpha.width, height: alpha.height, channels: 1 } })
      .png()
      .toBuffer();
    const background = await renderPromptImage({ prompt, width: size.width, height: size.height, variant });
    picture = await sharp(background).composite([{ input: masked }]).png().toBuffer();
  }
  const caption = await renderCaptionOverlay(prompt, size.width, size.height);
  return sharp(picture).composite([{ input: caption }]).png().toBuffer();
}
