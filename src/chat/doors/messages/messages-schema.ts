import { z } from 'zod';
import { MAX_OUTPUT_TOKENS } from '../../wire/chat-schema.js';

const jsonObject = z.record(z.string(), z.unknown());

const textBlock = z.looseObject({ type: z.literal('text'), text: z.string() });
const imageBlock = z.looseObject({
  type: z.literal('image'),
  source: z.discriminatedUnion('type', [
    z.looseObject({ type: z.literal('base64'), media_type: z.string().min(1), data: z.string().min(1) }),
    z.looseObject({ type: z.literal('url'), url: z.string().min(1) }),
  ]),
});
const toolUseBlock = z.looseObject({ type: z.literal('tool_use'), id: z.string().min(1), name: z.string().min(1), input: z.unknown() });
/** A block nested in a tool result: text and images map to chat, any other type is relayed as is. */
const nestedBlock = z.looseObject({ type: z.string().min(1) });
const toolResultBlock = z.looseObject({
  type: z.literal('tool_result'),
  tool_use_id: z.string().min(1),
  content: z.union([z.string(), z.array(nestedBlock)]).optional(),
  is_error: z.boolean().optional(),
});
const thinkingBlock = z.looseObject({ type: z.literal('thinking'), thinking: z.string() });
const redactedThinkingBlock = z.looseObject({ type: z.literal('redacted_thinking') });

const translatedBlock = z.discriminatedUnion('type', [textBlock, imageBlock, toolUseBlock, toolResultBlock, thinkingBlock, redactedThinkingBlock]);

/** Block types the mapping to a chat request understands. */
export const TRANSLATED_BLOCK_TYPES: ReadonlySet<string> = new Set(['text', 'image', 'tool_use', 'tool_result', 'thinking', 'redacted_thinking']);

/** Any other block (document, search_result, server_tool_use, …): only a relayed request carries it. */
const otherBlock = z.looseObject({ type: z.string().min(1) });
type OtherBlock = z.output<typeof otherBlock>;

/**
 * A content block of a request message: a block of a type the chat mapping knows must be
 * well formed (its own problem is reported, not a union's); any other type passes as is.
 */
export const contentBlockSchema = otherBlock.transform((block, ctx): z.output<typeof translatedBlock> | OtherBlock => {
  if (!TRANSLATED_BLOCK_TYPES.has(block.type)) return block;
  const parsed = translatedBlock.safeParse(block);
  if (parsed.success) return parsed.data;
  for (const issue of parsed.error.issues) ctx.issues.push({ code: 'custom', message: issue.message, path: issue.path, input: block });
  return z.NEVER;
});
/** A content block the mapping to chat understands, as parsed. */
export type ContentBlock = z.output<typeof translatedBlock>;
/** Any content block, as parsed. */
export type AnyContentBlock = z.output<typeof contentBlockSchema>;

/**
 * A conversation turn. Besides user and assistant turns, the API takes `system` turns in the
 * middle of a conversation (text only), which coding agents send to add instructions as they go.
 */
const message = z.discriminatedUnion('role', [
  z.looseObject({ role: z.literal('user'), content: z.union([z.string(), z.array(contentBlockSchema)]) }),
  z.looseObject({ role: z.literal('assistant'), content: z.union([z.string(), z.array(contentBlockSchema)]) }),
  z.looseObject({ role: z.literal('system'), content: z.union([z.string(), z.array(textBlock)]) }),
]);
/** A request message as parsed. */
export type MessagesMessage = z.output<typeof message>;

const customTool = z.looseObject({
  type: z.literal('custom').nullable().optional(),
  name: z.string().regex(/^[a-zA-Z0-9_-]{1,128}$/, 'must match ^[a-zA-Z0-9_-]{1,128}$'),
  description: z.string().optional(),
  input_schema: jsonObject,
});
/** A tool the vendor runs itself (`web_search_20250305`, …): only a relayed request can use it. */
const serverTool = z.looseObject({
  type: z.string().min(1).refine((type) => type !== 'custom', 'a custom tool needs input_schema'),
  name: z.string().min(1),
});
const tool = z.union([customTool, serverTool]);

const toolChoice = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('auto') }),
  z.looseObject({ type: z.literal('any') }),
  z.looseObject({ type: z.literal('none') }),
  z.looseObject({ type: z.literal('tool'), name: z.string().min(1) }),
]);

const enabledThinking = z.looseObject({ type: z.literal('enabled'), budget_tokens: z.number().int().positive().max(MAX_OUTPUT_TOKENS) });
/**
 * The thinking setting: a token budget must be a valid one (it bounds the hold); `adaptive`
 * (the model decides, `display` says whether the text is shown), `disabled` and any newer type
 * pass as the vendor takes them.
 */
const thinking = z.looseObject({ type: z.string().min(1) }).transform((value, ctx) => {
  if (value.type !== 'enabled') return value as { type: string; display?: unknown };
  const parsed = enabledThinking.safeParse(value);
  if (parsed.success) return parsed.data;
  for (const issue of parsed.error.issues) ctx.issues.push({ code: 'custom', message: issue.message, path: issue.path, input: value });
  return z.NEVER;
});

/** Anthropic's Messages API request, as this service accepts it. */
export const messagesRequestSchema = z.looseObject({
  model: z.string().min(1).max(256),
  max_tokens: z.number().int().positive().max(MAX_OUTPUT_TOKENS),
  messages: z.array(message).min(1, 'must contain at least one message'),
  system: z.union([z.string(), z.array(textBlock)]).optional(),
  tools: z.array(tool).max(128).optional(),
  tool_choice: toolChoice.optional(),
  thinking: thinking.optional(),
  stop_sequences: z.array(z.string()).optional(),
  output_config: z.looseObject({ effort: z.string().nullable().optional() }).nullable().optional(),
  metadata: z.looseObject({ user_id: z.string().nullable().optional() }).nullable().optional(),
  temperature: z.number().min(0).max(1).optional(),
  top_p: z.number().min(0).max(1).optional(),
  stream: z.boolean().optional(),
});

/** A Messages request as parsed. */
export type MessagesRequest = z.output<typeof messagesRequestSchema>;
