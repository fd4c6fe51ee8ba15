import { toUsdNumber } from '../billing/index.js';
import { type ImagesJobResult, isPlainBase64 } from '../queue/index.js';

/** The images endpoints' answer, shaped like OpenAI's, plus `usage.cost` in USD. */
export interface ImagesResponse {
  created: number;
  data: Array<{ b64_json: string; revised_prompt?: string }>;
  usage: {
    cost: number;
    images: number;
    input_tokens: number;
    output_tokens: number;
    total_tokens: number;
    input_tokens_details: { text_tokens: number; image_tokens: number };
  };
}

/**
 * Builds the response. The token fields OpenAI's spec requires of an image `usage` are always
 * there: what a gpt-image provider reported (and billed), zeros for models priced per image.
 */
export function imagesResponse(created: number, result: ImagesJobResult, cost: bigint): ImagesResponse {
  const { usage } = result;
  const input = usage.textInputTokens + usage.imageInputTokens;
  const tokens = {
    input_tokens: input,
    output_tokens: usage.imageOutputTokens,
    total_tokens: input + usage.imageOutputTokens,
    input_tokens_details: { text_tokens: usage.textInputTokens, image_tokens: usage.imageInputTokens },
  };
  const data = result.images.map((image) =>
    image.revised_prompt === undefined ? { b64_json: image.b64_json } : { b64_json: image.b64_json, revised_prompt: image.revised_prompt },
  );
  return { created, data, usage: { cost: toUsdNumber(cost), images: usage.images, ...tokens } };
}

/** One image's JSON: its base64 written as it is when it needs no escaping (it never does). */
function imageJson(image: ImagesResponse['data'][number]): string {
  const b64 = isPlainBase64(image.b64_json) ? `"${image.b64_json}"` : JSON.stringify(image.b64_json);
  return image.revised_prompt === undefined ? `{"b64_json":${b64}}` : `{"b64_json":${b64},"revised_prompt":${JSON.stringify(image.revised_prompt)}}`;
}

/**
 * The response as JSON text, as JSON.stringify would write it. A 4 MB image is 5.9 MB of
 * base64, which JSON.stringify scans character by character for escapes; a regex test
 * proves there are none in a third of the time.
 */
export function imagesJson(response: ImagesResponse): string {
  return `{"created":${response.created},"data":[${response.data.map(imageJson).join(',')}],"usage":${JSON.stringify(response.usage)}}`;
}
