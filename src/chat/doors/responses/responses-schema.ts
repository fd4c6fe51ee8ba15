import { z } from 'zod';
import { MAX_OUTPUT_TOKENS } from '../../wire/chat-schema.js';

const jsonObject = z.record(z.string(), z.unknown());
const text = z.string();

const inputText = z.looseObject({ type: z.literal('input_text'), text });
const outputText = z.looseObject({ type: z.literal('output_text'), text });
const inputImage = z.looseObject({
  type: z.literal('input_image'),
  image_url: z.string().nullable().optional(),
  file_id: z.string().nullable().optional(),
  detail: z.enum(['auto', 'low', 'high']).optional(),
});
const refusal = z.looseObject({ type: z.literal('refusal'), refusal: text });
const knownPart = z.discriminatedUnion('type', [inputText, outputText, inputImage, refusal]);
const KNOWN_PARTS: ReadonlySet<string> = new Set(['input_text', 'output_text', 'input_image', 'refusal']);
type OtherPart = { type: string; [field: string]: unknown };

/**
 * Checks a value against `schema` only when `known` says its `type` is one the mapping reads;
 * any other type passes as the vendor takes it (a relayed request carries it untouched).
 * A known type's own problems are reported at their path, not as a union's.
 */
function typedOrOther<T extends z.ZodType>(schema: T, known: (type: string | undefined) => boolean) {
  return z.looseObject({ type: z.string().min(1).optional() }).transform((value, ctx): z.output<T> | OtherPart => {
    if (!known(value.type)) return value as OtherPart;
    const parsed = schema.safeParse(value);
    if (parsed.success) return parsed.data;
    for (const issue of parsed.error.issues) ctx.issues.push({ code: 'custom', message: issue.message, path: issue.path, input: value });
    return z.NEVER;
  });
}

const contentPart = typedOrOther(knownPart, (type) => type !== undefined && KNOWN_PARTS.has(type));
/** A content part as parsed: a known part, or any other part (`input_file`, `input_audio`, …) as sent. */
export type ContentPartIn = z.output<typeof knownPart> | OtherPart;

const messageItem = z.looseObject({
  type: z.literal('message').optional(),
  role: z.enum(['user', 'assistant', 'system', 'developer']),
  content: z.union([text, z.array(contentPart)]),
});
const functionCallItem = z.looseObject({
  type: z.literal('function_call'),
  call_id: z.string().min(1),
  name: z.string().min(1),
  namespace: z.string().nullable().optional(),
  arguments: z.string(),
});
const customCallItem = z.looseObject({
  type: z.literal('custom_tool_call'),
  call_id: z.string().min(1),
  name: z.string().min(1),
  namespace: z.string().nullable().optional(),
  input: z.string(),
});
const customOutputItem = z.looseObject({
  type: z.literal('custom_tool_call_output'),
  call_id: z.string().min(1),
  output: z.union([text, z.array(contentPart)]),
});
const functionOutputItem = z.looseObject({
  type: z.literal('function_call_output'),
  call_id: z.string().min(1),
  output: z.union([text, z.array(contentPart)]),
});
const reasoningItem = z.looseObject({ type: z.literal('reasoning') });
const referenceItem = z.looseObject({ type: z.literal('item_reference'), id: z.string() });

const functionTool = z.looseObject({
  type: z.literal('function'),
  name: z.string().min(1),
  description: z.string().nullable().optional(),
  parameters: jsonObject.nullable().optional(),
  strict: z.boolean().nullable().optional(),
});
/** A function tool as parsed. */
export type FunctionTool = z.output<typeof functionTool>;
/** A namespace tool as parsed. */
export type NamespaceTool = z.output<typeof namespaceTool>;
const namespaceTool = z.looseObject({
  type: z.literal('namespace'),
  name: z.string().min(1),
  description: z.string().nullable().optional(),
  tools: z.array(typedOrOther(functionTool, (type) => type === 'function')).max(128),
});
const tool = typedOrOther(z.discriminatedUnion('type', [functionTool, namespaceTool]), (type) => type === 'function' || type === 'namespace');
/** A tool as parsed: a function, a namespace of tools, or a hosted or custom tool as sent. */
export type ResponsesTool = z.output<typeof tool>;

/** Tools a conversation adds as it goes (Codex sends its tools this way), as an input item. */
const additionalToolsItem = z.looseObject({ type: z.literal('additional_tools'), tools: z.array(tool).max(512) });

const knownItem = z.discriminatedUnion('type', [functionCallItem, functionOutputItem, customCallItem, customOutputItem, reasoningItem, referenceItem, additionalToolsItem]);
const KNOWN_ITEMS: ReadonlySet<string> = new Set(['function_call', 'function_call_output', 'custom_tool_call', 'custom_tool_call_output', 'reasoning', 'item_reference', 'additional_tools']);

/**
 * One input item. A message may omit `type`, as the Responses API allows; the items the chat
 * mapping reads are checked, and every other item (hosted tool calls, compaction, …) passes
 * as sent: a same-kind route gets it untouched, a translation leaves it out.
 */
export const inputItemSchema = typedOrOther(z.union([messageItem, knownItem]), (type) => type === undefined || type === 'message' || KNOWN_ITEMS.has(type));
/** A message input item as parsed. */
export type MessageItem = z.output<typeof messageItem>;
/** An input item of a type the chat mapping reads (tool calls and their outputs, reasoning, references). */
export type KnownItem = z.output<typeof knownItem>;

/** The item as its known type, when it is one (the schema checked its shape). */
export function asKnownItem(item: InputItem): KnownItem | undefined {
  return item.type !== undefined && KNOWN_ITEMS.has(item.type) ? (item as KnownItem) : undefined;
}
/** An input item as parsed. */
export type InputItem = z.output<typeof inputItemSchema>;

const toolChoice = z.union([z.string().min(1), z.looseObject({ type: z.string().min(1), name: z.string().min(1).optional() })]);

const textFormat = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('text') }),
  z.looseObject({ type: z.literal('json_object') }),
  z.looseObject({
    type: z.literal('json_schema'),
    name: z.string().min(1),
    schema: jsonObject,
    description: z.string().optional(),
    strict: z.boolean().nullable().optional(),
  }),
]);

/**
 * The Responses API request this service accepts. It is stateless: the fields that need
 * stored state are read here only to be refused with a clear message.
 */
export const responsesRequestSchema = z.looseObject({
  model: z.string().min(1).max(256),
  input: z.union([text, z.array(inputItemSchema)]),
  instructions: z.string().nullable().optional(),
  tools: z.array(tool).max(512).optional(),
  tool_choice: toolChoice.optional(),
  parallel_tool_calls: z.boolean().nullable().optional(),
  text: z.looseObject({ format: textFormat.optional() }).nullable().optional(),
  reasoning: z
    .looseObject({
      effort: z.string().nullable().optional(),
      summary: z.string().nullable().optional(),
    })
    .nullable()
    .optional(),
  max_output_tokens: z.number().int().positive().max(MAX_OUTPUT_TOKENS).nullable().optional(),
  temperature: z.number().min(0).max(2).nullable().optional(),
  top_p: z.number().min(0).max(1).nullable().optional(),
  stream: z.boolean().nullable().optional(),
  store: z.boolean().nullable().optional(),
  previous_response_id: z.string().nullable().optional(),
  conversation: z.unknown().optional(),
});

/** A Responses request as parsed. */
export type ResponsesRequest = z.output<typeof responsesRequestSchema>;
