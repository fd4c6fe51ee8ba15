import { GatewayError } from '../../../platform/errors/index.js';
import type { ChatMessage, ContentPart, ToolCall } from '../../../providers/index.js';
import { asKnownItem, type ContentPartIn, type InputItem, type MessageItem, type ResponsesRequest } from './responses-schema.js';
import { chatName, translateTools, type TranslatedTools } from './responses-tools.js';

/** Reasoning efforts chat takes; a newer level asks for medium effort rather than failing. */
const EFFORTS: ReadonlySet<string> = new Set(['none', 'minimal', 'low', 'medium', 'high', 'xhigh']);

const STATELESS = 'This service is stateless: send the whole conversation in `input`';

/** Refuses what needs stored responses or items (DESIGN §4.5). */
export function refuseStateful(request: ResponsesRequest): void {
  if (request.previous_response_id) {
    throw new GatewayError('invalid_request', `${STATELESS}; previous_response_id is not supported.`, { param: 'previous_response_id' });
  }
  if (request.store === true) throw new GatewayError('invalid_request', `${STATELESS}; store: true is not supported (send store: false).`, { param: 'store' });
  if (request.conversation !== undefined && request.conversation !== null) {
    throw new GatewayError('invalid_request', `${STATELESS}; conversation is not supported.`, { param: 'conversation' });
  }
  const items: readonly InputItem[] = Array.isArray(request.input) ? request.input : [];
  const ref = items.findIndex((item) => item.type === 'item_reference');
  if (ref >= 0) throw new GatewayError('invalid_request', `${STATELESS}; item references are not supported.`, { param: `input.${ref}` });
}

function isMessage(item: InputItem): item is MessageItem {
  return (item.type === undefined || item.type === 'message') && 'role' in item;
}

/** True for the parts chat carries: text, refusals and images given by URL. */
function translates(part: ContentPartIn): boolean {
  if (part.type === 'input_image') return typeof part.image_url === 'string' && part.image_url !== '';
  return part.type === 'input_text' || part.type === 'output_text' || part.type === 'refusal';
}

/**
 * A part's chat form. A part chat has no form for (a file, audio, an image by file id) only
 * reaches a provider that relays the request; it stays as its JSON text, so the hold still
 * counts it (a translated request carrying one is refused, see untranslatablePart).
 */
function partOf(part: ContentPartIn): ContentPart {
  if (!translates(part)) return { type: 'text', text: JSON.stringify(part) };
  if (part.type === 'input_text' || part.type === 'output_text') return { type: 'text', text: String(part.text) };
  if (part.type === 'refusal') return { type: 'text', text: String(part.refusal) };
  const detail = typeof part.detail === 'string' && ['auto', 'low', 'high'].includes(part.detail) ? { detail: part.detail as 'auto' | 'low' | 'high' } : {};
  return { type: 'image_url', image_url: { url: String(part.image_url), ...detail } };
}

/** Where the request carries a part only the Responses API itself reads, as a parameter path. */
export function untranslatablePart(request: ResponsesRequest): string | undefined {
  if (typeof request.input === 'string') return undefined;
  for (const [i, item] of request.input.entries()) {
    const field = 'content' in item ? 'content' : 'output' in item ? 'output' : undefined;
    const parts = field === undefined ? undefined : (item as Record<string, unknown>)[field];
    if (!Array.isArray(parts)) continue;
    const j = (parts as ContentPartIn[]).findIndex((part) => !translates(part));
    if (j >= 0) return `input.${i}.${field}.${j}`;
  }
  return undefined;
}

function partsOf(content: string | readonly ContentPartIn[]): ContentPart[] | string {
  return typeof content === 'string' ? content : content.map(partOf);
}

function textOnly(parts: ContentPart[] | string): string {
  return typeof parts === 'string' ? parts : parts.map((p) => (p.type === 'text' ? p.text : '')).join('');
}

/** Appends a function call to the assistant turn it belongs to (consecutive calls share one). */
function addCall(messages: ChatMessage[], call: ToolCall): void {
  const last = messages.at(-1);
  if (last?.role === 'assistant' && last.tool_calls !== undefined) last.tool_calls.push(call);
  else messages.push({ role: 'assistant', content: null, tool_calls: [call] });
}

/** Appends one item's chat form; items of hosted tools and reasoning carry nothing a translation can replay. */
function addItem(messages: ChatMessage[], input: InputItem): void {
  if (isMessage(input)) {
    const parts = partsOf(input.content);
    messages.push({ role: input.role, content: input.role === 'user' ? parts : textOnly(parts) });
    return;
  }
  const item = asKnownItem(input);
  if (item?.type === 'function_call') {
    addCall(messages, { id: item.call_id, type: 'function', function: { name: chatName(item.name, item.namespace), arguments: item.arguments } });
  } else if (item?.type === 'custom_tool_call') {
    // A free-form call in the history reads as a call with its input, so the turn stays whole.
    addCall(messages, { id: item.call_id, type: 'function', function: { name: chatName(item.name, item.namespace), arguments: JSON.stringify({ input: item.input }) } });
  } else if (item?.type === 'function_call_output' || item?.type === 'custom_tool_call_output') {
    messages.push({ role: 'tool', tool_call_id: item.call_id, content: textOnly(partsOf(item.output)) });
  }
}

/** Maps Responses input items to chat messages, in order. */
export function inputToMessages(input: ResponsesRequest['input']): ChatMessage[] {
  if (typeof input === 'string') return [{ role: 'user', content: input }];
  const messages: ChatMessage[] = [];
  for (const item of input) addItem(messages, item);
  return messages;
}

function responseFormat(request: ResponsesRequest): Record<string, unknown> | undefined {
  const format = request.text?.format;
  if (format === undefined || format.type === 'text') return undefined;
  if (format.type === 'json_object') return { type: 'json_object' };
  const { type: _type, ...jsonSchema } = format;
  return { type: 'json_schema', json_schema: jsonSchema };
}

/** Chat's tool choice: a function by name, a mode, or none for a tool chat has no form for (see forcedHostedTool). */
function toolChoice(choice: ResponsesRequest['tool_choice']): unknown {
  if (choice === undefined || typeof choice === 'string') return choice;
  if (choice.type === 'function' && choice.name !== undefined) return { type: 'function', function: { name: choice.name } };
  return choice.type === 'allowed_tools' ? 'auto' : undefined;
}

/** The tool `tool_choice` forces when a translation cannot offer it (a hosted or custom tool); undefined otherwise. */
export function forcedHostedTool(request: ResponsesRequest): string | undefined {
  const choice = request.tool_choice;
  if (choice === undefined || typeof choice === 'string' || choice.type === 'function' || choice.type === 'allowed_tools') return undefined;
  return choice.name ?? choice.type;
}

/**
 * Maps a Responses request to the chat request the chat service admits and runs, so holds,
 * limits, metering and the ledger are those of chat completions.
 */
export function responsesToChat(request: ResponsesRequest, tools: TranslatedTools = translateTools(request)): Record<string, unknown> {
  refuseStateful(request);
  const instructions = request.instructions ? [{ role: 'system', content: request.instructions }] : [];
  const body: Record<string, unknown> = {
    model: request.model,
    messages: [...instructions, ...inputToMessages(request.input)],
    stream: request.stream === true,
  };
  if (tools.functions.length > 0) body.tools = tools.functions;
  const choice = body.tools === undefined ? undefined : toolChoice(request.tool_choice);
  if (choice !== undefined) body.tool_choice = choice;
  if (typeof request.parallel_tool_calls === 'boolean' && body.tools !== undefined) body.parallel_tool_calls = request.parallel_tool_calls;
  const format = responseFormat(request);
  if (format !== undefined) body.response_format = format;
  if (request.reasoning?.effort) body.reasoning_effort = EFFORTS.has(request.reasoning.effort) ? request.reasoning.effort : 'medium';
  if (typeof request.max_output_tokens === 'number') body.max_tokens = request.max_output_tokens;
  if (typeof request.temperature === 'number') body.temperature = request.temperature;
  if (typeof request.top_p === 'number') body.top_p = request.top_p;
  return body;
}
