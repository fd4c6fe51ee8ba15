import { z } from 'zod';
import { GatewayError } from '../platform/errors/index.js';
import { validate } from '../platform/validation/index.js';
import type { ImageJobParams } from '../queue/index.js';

/** Most images one request may ask for (OpenAI's own limit). */
export const MAX_IMAGES_PER_REQUEST = 10;
/** Longest prompt accepted (gpt-image's limit). */
export const MAX_PROMPT_CHARS = 32_000;

const shortText = z.string().min(1).max(40);

/** Largest side any image provider renders (gpt-image-1 and its peers stop well below). */
export const MAX_IMAGE_SIDE = 8_192;

/**
 * `size`: free text, since providers name sizes their own way (`auto`, `1536x1024`, `2K`), but a
 * `WxH` size is checked here, so an impossible one is refused at once rather than after a trip
 * through the queue to a worker.
 */
const imageSize = shortText.refine(
  (size) => {
    const match = /^(\d+)x(\d+)$/.exec(size);
    return !match || [match[1], match[2]].every((side) => Number(side) >= 1 && Number(side) <= MAX_IMAGE_SIDE);
  },
  { message: `a WxH size must have sides from 1 to ${MAX_IMAGE_SIDE} pixels` },
);

/** Fields shared by generations (JSON) and edits (multipart, where numbers arrive as text). */
function imageFields(count: z.ZodType<number | null | undefined>) {
  return {
    model: z.string().min(1).max(200),
    prompt: z.string().min(1).max(MAX_PROMPT_CHARS),
    n: count,
    size: imageSize.nullish(),
    quality: shortText.nullish(),
    background: shortText.nullish(),
    output_format: z.enum(['png', 'jpeg', 'webp']).nullish(),
    response_format: z.enum(['b64_json', 'url']).nullish(),
    stream: z.boolean().nullish(),
  };
}

const count = z.number().int().min(1).max(MAX_IMAGES_PER_REQUEST).nullish();

/** `POST /v1/images/generations` body; unknown fields (user, moderation, …) are ignored. */
export const imageGenerateSchema = z.looseObject(imageFields(count));

/** `POST /v1/images/edits` text fields, as multipart delivers them. */
export const imageEditSchema = z.looseObject({
  ...imageFields(z.coerce.number().int().min(1).max(MAX_IMAGES_PER_REQUEST).nullish()),
  stream: z.enum(['true', 'false']).nullish(),
});

/** A validated image request. */
export interface ImageRequest {
  model: string;
  params: ImageJobParams;
}

/**
 * Checks what the schemas cannot express: results come back only as `b64_json` (no hosted
 * URLs) and not as a stream.
 */
function checkDelivery(body: { response_format?: string | null; stream?: boolean | string | null }): void {
  if (body.response_format === 'url') {
    throw new GatewayError('unsupported_response_format', 'response_format "url" is not supported; images are returned as b64_json.', {
      param: 'response_format',
    });
  }
  if (body.stream === true || body.stream === 'true') {
    throw new GatewayError('invalid_request', 'Streaming image generation is not supported.', { param: 'stream' });
  }
}

function toRequest(body: z.output<typeof imageGenerateSchema> | z.output<typeof imageEditSchema>): ImageRequest {
  checkDelivery(body);
  const params: ImageJobParams = { prompt: body.prompt, n: body.n ?? 1 };
  if (body.size != null) params.size = body.size;
  if (body.quality != null) params.quality = body.quality;
  if (body.background != null) params.background = body.background;
  if (body.output_format != null) params.outputFormat = body.output_format;
  return { model: body.model, params };
}

/** Validates a generations body. */
export function parseGenerateRequest(raw: unknown): ImageRequest {
  return toRequest(validate(imageGenerateSchema, raw));
}

/** Validates the text fields of an edits form. */
export function parseEditRequest(fields: Record<string, string>): ImageRequest {
  return toRequest(validate(imageEditSchema, fields));
}
