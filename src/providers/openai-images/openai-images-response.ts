import { GatewayError } from '../../platform/errors/index.js';
import { arrayAt, numberAt, recordAt, stringAt } from '../http/narrow.js';
import type { ImageResult, ImageUsage } from '../images/image-types.js';

function garbage(why: string): GatewayError {
  return new GatewayError('upstream_error', `The image provider answered with an unexpected body: ${why}`);
}

/**
 * Token usage of GPT image models (`usage.input_tokens_details.{text_tokens,image_tokens}`,
 * `usage.output_tokens`); models that report none (DALL·E) are billed per image.
 */
function mapUsage(body: unknown, images: number): ImageUsage {
  const usage = recordAt(body, 'usage');
  if (usage === undefined) return { images, textInputTokens: 0, imageInputTokens: 0, imageOutputTokens: 0 };
  const details = recordAt(usage, 'input_tokens_details');
  const inputTokens = numberAt(usage, 'input_tokens') ?? 0;
  const textTokens = numberAt(details, 'text_tokens');
  const imageTokens = numberAt(details, 'image_tokens');
  return {
    images,
    // Without a breakdown, all input is taken as text: it is the only input of a generation.
    textInputTokens: textTokens ?? (imageTokens === undefined ? inputTokens : Math.max(0, inputTokens - imageTokens)),
    imageInputTokens: imageTokens ?? 0,
    imageOutputTokens: numberAt(usage, 'output_tokens') ?? 0,
  };
}

/** Maps an OpenAI Images API response (`{created, data: [{b64_json, revised_prompt?}], usage?}`). */
export function fromImagesResponse(body: unknown): ImageResult {
  const data = arrayAt(body, 'data');
  if (data === undefined) throw garbage('no data array');
  const images = data.map((item, index) => {
    const b64 = stringAt(item, 'b64_json');
    if (b64 === undefined || b64 === '') throw garbage(`image ${index} has no b64_json`);
    const revised = stringAt(item, 'revised_prompt');
    return revised === undefined ? { b64_json: b64 } : { b64_json: b64, revised_prompt: revised };
  });
  if (images.length === 0) throw garbage('no images');
  return { images, usage: mapUsage(body, images.length) };
}
