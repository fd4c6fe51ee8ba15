import { GatewayError } from '../../errors/gateway-error.js';
import type { ChatMessage, ContentPart, ToolCall } from '../../providers/chat/chat-types.js';
import type { InputItem, MessageItem, ResponsesRequest } from './responses-schema.js';

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
  const items = Array.isArray(request.input) ? request.input : [];
  const ref = items.findIndex((item) => item.type === 'item_reference');
  if (ref >= 0) throw new GatewayError('invalid_request', `${STATELESS}; item references are not supported.`, { param: `input.${ref}` });
}

type Part = MessageItem['content'];

function isMessage(item: InputItem): item is MessageItem {
  return item.type === undefined || item.type === 'message';
}

function partsOf(content: Part, param: string): ContentPart[] | string {
  if (typeof content === 'string') return content;
  return content.map((part, i): ContentPart => {
    if (part.type === 'input_text' || part.type === 'output_text') return { type: 'text', text: part.text };
    if (part.type === 'refusal') return { type: 'text', text: part.refusal };
    if (!part.image_url) throw new GatewayError('invalid_request', 'input_image needs image_url (file ids need stored files)', { param: `${param}.${i}.image_url` });
    return { type: 'image_url', image_url: { url: part.image_url, ...(part.detail ? { detail: part.detail } : {}) } };
  });
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

/** Maps Responses input items to chat messages, in order. */
export function inputToMessages(input: ResponsesRequest['input']): ChatMessage[] {
  if (typeof input === 'string') return [{ role: 'user', content: input }];
  const messages: ChatMessage[] = [];
  input.forEach((item, i) => {
    const param = `input.${i}`;
    if (isMessage(item)) {
      const parts = partsOf(item.content, `${param}.content`);
      messages.push({ role: item.role, content: item.role === 'user' ? parts : textOnly(parts) });
    } else if (item.type === 'function_call') {
      addCall(messages, { id: item.call_id, type: 'function', function: { name: item.name, arguments: item.arguments } });
    } else if (item.type === 'function_call_output') {
      messages.push({ role: 'tool', tool_call_id: item.call_id, content: textOnly(partsOf(item.output, `${param}.output`)) });
    }
    // Reasoning items from an earlier turn carry nothing a stateless replay needs.
  });
  return messages;
}

function responseFormat(request: ResponsesRequest): Record<string, unknown> | undefined {
  const format = request.text?.format;
  if (format === undefined || format.type === 'text') return undefined;
  if (format.type === 'json_object') return { type: 'json_object' };
  const { type: _type, ...jsonSchema } = format;
  return { type: 'json_schema', json_schema: jsonSchema };
}

function toolChoice(choice: ResponsesRequest['tool_choice']): unknown {
  if (choice === undefined || typeof choice === 'string') return choice;
  return { type: 'function', function: { name: choice.name } };
}

/**
 * Maps a Responses request to the chat request the chat service admits and runs, so holds,
 * limits, metering and the ledger are those of chat completions.
 */
export function responsesToChat(request: ResponsesRequest): Record<string, unknown> {
  refuseStateful(request);
  const instructions = request.instructions ? [{ role: 'system', content: request.instructions }] : [];
  const body: Record<string, unknown> = {
    model: request.model,
    messages: [...instructions, ...inputToMessages(request.input)],
    stream: request.stream === true,
  };
  if (request.tools?.length) {
    body.tools = request.tools.map((t) => ({
      type: 'function',
      function: { name: t.name, ...(t.description ? { description: t.description } : {}), ...(t.parameters ? { parameters: t.parameters } : {}) },
    }));
  }
  const choice = toolChoice(request.tool_choice);
  if (choice !== undefined) body.tool_choice = choice;
  if (typeof request.parallel_tool_calls === 'boolean' && body.tools !== undefined) body.parallel_tool_calls = request.parallel_tool_calls;
  const format = responseFormat(request);
  if (format !== undefined) body.response_format = format;
  if (request.reasoning?.effort) body.reasoning_effort = request.reasoning.effort;
  if (typeof request.max_output_tokens === 'number') body.max_tokens = request.max_output_tokens;
  if (typeof request.temperature === 'number') body.temperature = request.temperature;
  if (typeof request.top_p === 'number') body.top_p = request.top_p;
  return body;
}
