import { z } from 'zod';
import { MAX_OUTPUT_TOKENS } from '../../chat/chat-schema.js';

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
const contentPart = z.discriminatedUnion('type', [inputText, outputText, inputImage, refusal]);

const messageItem = z.looseObject({
  type: z.literal('message').optional(),
  role: z.enum(['user', 'assistant', 'system', 'developer']),
  content: z.union([text, z.array(contentPart)]),
});
const functionCallItem = z.looseObject({
  type: z.literal('function_call'),
  call_id: z.string().min(1),
  name: z.string().min(1),
  arguments: z.string(),
});
const functionOutputItem = z.looseObject({
  type: z.literal('function_call_output'),
  call_id: z.string().min(1),
  output: z.union([text, z.array(contentPart)]),
});
const reasoningItem = z.looseObject({ type: z.literal('reasoning') });
const referenceItem = z.looseObject({ type: z.literal('item_reference'), id: z.string() });

/** One input item; a message may omit `type`, as the Responses API allows. */
export const inputItemSchema = z.union([messageItem, functionCallItem, functionOutputItem, reasoningItem, referenceItem]);
/** A message input item as parsed. */
export type MessageItem = z.output<typeof messageItem>;
/** An input item as parsed. */
export type InputItem = z.output<typeof inputItemSchema>;

const functionTool = z.looseObject({
  type: z.literal('function'),
  name: z.string().min(1),
  description: z.string().nullable().optional(),
  parameters: jsonObject.nullable().optional(),
  strict: z.boolean().nullable().optional(),
});

const toolChoice = z.union([
  z.enum(['none', 'auto', 'required']),
  z.looseObject({ type: z.literal('function'), name: z.string().min(1) }),
]);

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
  tools: z.array(functionTool, { error: 'only function tools are supported' }).max(128).optional(),
  tool_choice: toolChoice.optional(),
  parallel_tool_calls: z.boolean().nullable().optional(),
  text: z.looseObject({ format: textFormat.optional() }).nullable().optional(),
  reasoning: z
    .looseObject({
      effort: z.enum(['none', 'minimal', 'low', 'medium', 'high', 'xhigh']).nullable().optional(),
      summary: z.enum(['auto', 'concise', 'detailed']).nullable().optional(),
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
