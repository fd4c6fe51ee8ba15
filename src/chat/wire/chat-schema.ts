import { z } from 'zod';
import type { ChatRequestBody } from '../../providers/index.js';
import { imageUrlProblem } from './image-data-url.js';

/** Largest `max_tokens` accepted; no model produces more in one call. */
export const MAX_OUTPUT_TOKENS = 1_000_000;
/** Most choices per request. */
export const MAX_CHOICES = 8;
/** Most messages in one conversation. */
export const MAX_MESSAGES = 2_048;
/** Most content parts in one message. */
export const MAX_CONTENT_PARTS = 1_024;
/** Most tools offered in one request (OpenAI's limit). */
export const MAX_TOOLS = 128;
/** Most stop sequences (OpenAI's limit) and the longest one. */
export const MAX_STOP_SEQUENCES = 4;
export const MAX_STOP_CHARS = 1_024;
/** Deepest JSON nesting of a tool's or response format's schema (about 15 schema levels). */
export const MAX_SCHEMA_DEPTH = 32;
/** Most values (objects, arrays, scalars) in one such schema. */
export const MAX_SCHEMA_NODES = 10_000;

/** Function names as the most permissive vendor takes them (Anthropic: 128 characters); an upstream with a tighter rule answers for itself. */
const FUNCTION_NAME = /^[a-zA-Z0-9_-]{1,128}$/;
/** Depth and node count of a JSON value, walked iteratively and stopped at the limits. */
function schemaProblem(value: unknown): string | undefined {
  const stack: Array<[unknown, number]> = [[value, 1]];
  let nodes = 0;
  while (stack.length > 0) {
    const [node, depth] = stack.pop() as [unknown, number];
    if (++nodes > MAX_SCHEMA_NODES) return `must have at most ${MAX_SCHEMA_NODES} values`;
    if (typeof node !== 'object' || node === null) continue;
    if (depth > MAX_SCHEMA_DEPTH) return `must be nested at most ${MAX_SCHEMA_DEPTH} levels deep`;
    for (const child of Object.values(node)) stack.push([child, depth + 1]);
  }
  return undefined;
}

const jsonObject = z.record(z.string(), z.unknown());
/** A JSON Schema of bounded size and depth: sampling or relaying it stays cheap. */
const jsonSchema = jsonObject.superRefine((schema, ctx) => {
  const problem = schemaProblem(schema);
  if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
});
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
const textOnlyContent = z.union([z.string(), z.array(textPart).max(MAX_CONTENT_PARTS)]);
const richContent = z.union([z.string(), z.array(contentPart).min(1).max(MAX_CONTENT_PARTS)]);

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
    name: z.string().regex(FUNCTION_NAME, 'must match ^[a-zA-Z0-9_-]{1,128}$'),
    description: z.string().optional(),
    parameters: jsonSchema.optional(),
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
      name: z.string().regex(FUNCTION_NAME, 'must match ^[a-zA-Z0-9_-]{1,128}$'),
      description: z.string().optional(),
      schema: jsonSchema,
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
  messages: z.array(message).min(1, 'must contain at least one message').max(MAX_MESSAGES),
  stream: z.boolean().optional(),
  stream_options: z.looseObject({ include_usage: z.boolean().optional() }).nullable().optional(),
  tools: z.array(tool).max(MAX_TOOLS).optional(),
  tool_choice: toolChoice.optional(),
  parallel_tool_calls: z.boolean().optional(),
  response_format: responseFormat.optional(),
  max_tokens: positiveTokens.nullable().optional(),
  max_completion_tokens: positiveTokens.nullable().optional(),
  n: z.number().int().min(1).max(MAX_CHOICES).nullable().optional(),
  temperature: z.number().min(0).max(2).nullable().optional(),
  top_p: z.number().min(0).max(1).nullable().optional(),
  stop: z.union([z.string().max(MAX_STOP_CHARS), z.array(z.string().max(MAX_STOP_CHARS)).max(MAX_STOP_SEQUENCES)]).nullable().optional(),
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
