import { toUsdNumber } from '../billing/index.js';
import { type ImagesJobResult, isPlainBase64, isQuotableAscii } from '../queue/index.js';

/**
 * The images endpoints' answer, shaped like OpenAI's, plus `usage.cost` in USD. An image's
 * base64 may still be the bytes the job's stored result held (see ImagesJobResult).
 */
export interface ImagesResponse {
  created: number;
  data: Array<{ b64_json: string | Buffer; revised_prompt?: string }>;
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

/** An image's base64 as a JSON string: written as it is when it needs no escaping (it never does). */
function base64Json(b64: string | Buffer): Array<string | Buffer> {
  if (typeof b64 === 'string') return [isPlainBase64(b64) ? `"${b64}"` : JSON.stringify(b64)];
  return isQuotableAscii(b64) ? ['"', b64, '"'] : [JSON.stringify(b64.toString('utf8'))];
}

/**
 * The response as JSON bytes, as JSON.stringify would write it. A 4 MB image is 5.9 MB of
 * base64: stringified, it would be scanned for escapes, copied into one string and encoded
 * again on the way out; here its bytes are copied once, into the answer.
 */
export function imagesBody(response: ImagesResponse): Buffer {
  const pieces: Array<string | Buffer> = [`{"created":${response.created},"data":[`];
  for (const [i, image] of response.data.entries()) {
    pieces.push(i === 0 ? '{"b64_json":' : ',{"b64_json":', ...base64Json(image.b64_json));
    pieces.push(image.revised_prompt === undefined ? '}' : `,"revised_prompt":${JSON.stringify(image.revised_prompt)}}`);
  }
  pieces.push(`],"usage":${JSON.stringify(response.usage)}}`);
  return Buffer.concat(pieces.map((piece) => (typeof piece === 'string' ? Buffer.from(piece) : piece)));
}
