import { z } from 'zod';
import { GatewayError } from '../platform/errors/index.js';
import { parseEmbeddingInput, type ParsedInput } from './embeddings-input.js';

/**
 * OpenAI's `POST /v1/embeddings` body. Unknown fields are ignored (the spec forbids them, but
 * clients add their own, and nothing unknown is sent upstream). `input` is checked on its own
 * so a problem names the input's index.
 */
const embeddingsRequestSchema = z.object({
  model: z.string().min(1).max(256),
  input: z.unknown(),
  encoding_format: z.enum(['float', 'base64']).optional(),
  dimensions: z.number().int().min(1).max(16_384).optional(),
  user: z.string().max(512).optional(),
});

/** A validated embeddings request. */
export interface EmbeddingsRequest {
  model: string;
  input: ParsedInput;
  encodingFormat: 'float' | 'base64';
  dimensions?: number;
  user?: string;
}

/** The body's fields, or a 400 `invalid_request` whose `param` is the first offending field. */
function checkFields(raw: unknown): z.output<typeof embeddingsRequestSchema> {
  const result = embeddingsRequestSchema.safeParse(raw);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const param = (issue?.path ?? []).map(String).join('.');
  throw new GatewayError('invalid_request', `${param ? `${param}: ` : ''}${issue?.message ?? 'invalid request'}`, { param: param || null });
}

/** Validates a request body (400 `invalid_request` naming the field). */
export function parseEmbeddingsRequest(raw: unknown): EmbeddingsRequest {
  const body = checkFields(raw);
  if (body.input === undefined) throw new GatewayError('invalid_request', 'input: is required', { param: 'input' });
  return {
    model: body.model,
    input: parseEmbeddingInput(body.input),
    encodingFormat: body.encoding_format ?? 'float',
    ...(body.dimensions === undefined ? {} : { dimensions: body.dimensions }),
    ...(body.user === undefined ? {} : { user: body.user }),
  };
}
