import { z } from 'zod';
import type { ChatRequestBody } from '../providers/chat/chat-types.js';
import { imageUrlProblem } from './image-data-url.js';

/** Largest `max_tokens` accepted; no model produces more in one call. */
export const MAX_OUTPUT_TOKENS = 1_000_000;
/** Most choices per request. */
export const MAX_CHOICES = 8;

const FUNCTION_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const jsonObject = z.record(z.string(), z.unknown());
const positiveTokens = z.number().int().positive().max(MAX_OUTPUT_TOKENS);

const imageUrl = z.string().superRefine((url, ctx) => {
  const problem = imageUrlProblem(url);
  if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
});

const textPart = z.looseObject({ type: z.literal('text'), text: z.string() });
const imagePart = z.looseObject({
  type: z.literal('image_url'),
  image_url: z.looseObject({ url: imageUrl, detail: z.enum(['auto', 'low', 'high']).optional() }),
});
const contentPart = z.discriminatedUnion('type', [textPart, imagePart]);
const textOnlyContent = z.union([z.string(), z.array(textPart)]);
const richContent = z.union([z.string(), z.array(contentPart).min(1)]);

const toolCall = z.looseObject({
  id: z.string().min(1),
  type: z.literal('function'),
  function: z.looseObject({ name: z.string().regex(FUNCTION_NAME), arguments: z.string() }),
});

const name = z.string().min(1).max(256).optional();

const message = z.discriminatedUnion('role', [
  z.looseObject({ role: z.literal('system'), content: textOnlyContent, name }),
  z.looseObject({ role: z.literal('developer'), content: textOnlyContent, name }),
  z.looseObject({ role: z.literal('user'), content: richContent, name }),
  z.looseObject({
    role: z.literal('assistant'),
    content: textOnlyContent.nullable().optional(),
    name,
    tool_calls: z.array(toolCall).optional(),
    reasoning: z.string().optional(),
  }),
  z.looseObject({ role: z.literal('tool'), content: textOnlyContent, tool_call_id: z.string().min(1) }),
]);

const tool = z.looseObject({
  type: z.literal('function'),
  function: z.looseObject({
    name: z.string().regex(FUNCTION_NAME, 'must match ^[a-zA-Z0-9_-]{1,64}$'),
    description: z.string().optional(),
    parameters: jsonObject.optional(),
    strict: z.boolean().nullable().optional(),
  }),
});

const toolChoice = z.union([
  z.enum(['none', 'auto', 'required']),
  z.looseObject({ type: z.literal('function'), function: z.looseObject({ name: z.string().regex(FUNCTION_NAME) }) }),
]);

const responseFormat = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('text') }),
  z.looseObject({ type: z.literal('json_object') }),
  z.looseObject({
    type: z.literal('json_schema'),
    json_schema: z.looseObject({
      name: z.string().regex(FUNCTION_NAME, 'must match ^[a-zA-Z0-9_-]{1,64}$'),
      description: z.string().optional(),
      schema: jsonObject,
      strict: z.boolean().nullable().optional(),
    }),
  }),
]);

const reasoning = z.looseObject({
  effort: z.enum(['minimal', 'low', 'medium', 'high']).optional(),
  max_tokens: positiveTokens.optional(),
  exclude: z.boolean().optional(),
  enabled: z.boolean().optional(),
});

/**
 * The OpenAI chat-completions request, as accepted at the edge. Unknown top-level fields
 * pass through (OpenAI-compatible providers receive them); known ones are checked so a bad
 * value is a 400 naming its path rather than an upstream failure.
 */
export const chatRequestSchema = z.looseObject({
  model: z.string().min(1).max(256),
  messages: z.array(message).min(1, 'must contain at least one message'),
  stream: z.boolean().optional(),
  stream_options: z.looseObject({ include_usage: z.boolean().optional() }).nullable().optional(),
  tools: z.array(tool).max(128).optional(),
  tool_choice: toolChoice.optional(),
  parallel_tool_calls: z.boolean().optional(),
  response_format: responseFormat.optional(),
  max_tokens: positiveTokens.nullable().optional(),
  max_completion_tokens: positiveTokens.nullable().optional(),
  n: z.number().int().min(1).max(MAX_CHOICES).nullable().optional(),
  temperature: z.number().min(0).max(2).nullable().optional(),
  top_p: z.number().min(0).max(1).nullable().optional(),
  stop: z.union([z.string(), z.array(z.string()).max(4)]).nullable().optional(),
  seed: z.number().int().nullable().optional(),
  reasoning: reasoning.optional(),
  include_reasoning: z.boolean().optional(),
  reasoning_effort: z.enum(['none', 'minimal', 'low', 'medium', 'high', 'xhigh']).nullable().optional(),
});

/**
 * Drops explicit nulls of optional scalars, which the OpenAI SDK may send, so adapters see
 * "absent" rather than null.
 */
export function toChatRequestBody(parsed: z.output<typeof chatRequestSchema>): ChatRequestBody {
  const body: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(parsed)) if (value !== null && value !== undefined) body[field] = value;
  return body as ChatRequestBody;
}
