import type { ChatMessage, ContentPart, ToolCall } from '../../providers/chat/chat-types.js';
import { TRANSLATED_BLOCK_TYPES, type AnyContentBlock, type ContentBlock, type MessagesMessage, type MessagesRequest } from './messages-schema.js';

function imagePart(block: Extract<ContentBlock, { type: 'image' }>): ContentPart {
  const source = block.source;
  const url = source.type === 'base64' ? `data:${source.media_type};base64,${source.data}` : source.url;
  return { type: 'image_url', image_url: { url } };
}

function resultText(block: Extract<ContentBlock, { type: 'tool_result' }>): string {
  const content = block.content ?? '';
  const text = typeof content === 'string' ? content : content.map((b) => (b.type === 'text' ? b.text : '')).join('');
  return block.is_error === true ? `Error: ${text}` : text;
}

/** A user turn: its tool results become tool messages first, then the rest is one user message. */
function userMessages(blocks: readonly ContentBlock[]): ChatMessage[] {
  const out: ChatMessage[] = [];
  const parts: ContentPart[] = [];
  for (const block of blocks) {
    if (block.type === 'tool_result') out.push({ role: 'tool', tool_call_id: block.tool_use_id, content: resultText(block) });
    else if (block.type === 'text') parts.push({ type: 'text', text: block.text });
    else if (block.type === 'image') parts.push(imagePart(block));
  }
  if (parts.length > 0) out.push({ role: 'user', content: parts });
  return out;
}

function assistantMessage(blocks: readonly ContentBlock[]): ChatMessage {
  const text = blocks.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('');
  const reasoning = blocks.flatMap((b) => (b.type === 'thinking' ? [b.thinking] : [])).join('');
  const calls: ToolCall[] = blocks.flatMap((b) =>
    b.type === 'tool_use' ? [{ id: b.id, type: 'function' as const, function: { name: b.name, arguments: JSON.stringify(b.input ?? {}) } }] : [],
  );
  const message: ChatMessage = { role: 'assistant', content: text === '' && calls.length > 0 ? null : text };
  if (calls.length > 0) message.tool_calls = calls;
  if (reasoning !== '') message.reasoning = reasoning;
  return message;
}

function isTranslated(block: AnyContentBlock): block is ContentBlock {
  return TRANSLATED_BLOCK_TYPES.has(block.type);
}

/**
 * Maps Anthropic messages to chat messages, in order. Blocks chat has no form for (documents,
 * search results, server tool blocks) only ever reach a provider that relays the request; they
 * follow their turn as one message of their JSON, so the admission hold still counts them (a
 * request that would be translated is refused before any upstream call).
 */
export function messagesToChatMessages(messages: readonly MessagesMessage[]): ChatMessage[] {
  return messages.flatMap((m): ChatMessage[] => {
    if (typeof m.content === 'string') return [{ role: m.role, content: m.content }];
    const blocks = m.content.filter(isTranslated);
    const mapped = m.role === 'user' ? userMessages(blocks) : [assistantMessage(blocks)];
    const others = m.content.filter((block) => !isTranslated(block));
    return others.length === 0 ? mapped : [...mapped, { role: m.role, content: JSON.stringify(others) }];
  });
}

/**
 * Where the request uses what only a provider speaking the Messages API can serve (server
 * tools; document, search_result, server_tool_use … blocks), as a parameter path; undefined
 * when the whole request translates to chat.
 */
export function untranslatableParam(request: MessagesRequest): string | undefined {
  if (hasServerTools(request)) return 'tools';
  for (const [i, message] of request.messages.entries()) {
    if (typeof message.content === 'string') continue;
    const j = message.content.findIndex((block) => !isTranslated(block));
    if (j >= 0) return `messages.${i}.content.${j}`;
  }
  return undefined;
}

function toolChoice(choice: MessagesRequest['tool_choice']): unknown {
  if (choice === undefined) return undefined;
  if (choice.type === 'any') return 'required';
  if (choice.type === 'tool') return { type: 'function', function: { name: choice.name } };
  return choice.type;
}

type CustomTool = Extract<NonNullable<MessagesRequest['tools']>[number], { input_schema: unknown }>;

/** The request's own tools (with an input schema), which map to functions. */
export function customTools(request: MessagesRequest): CustomTool[] {
  return (request.tools ?? []).filter((t): t is CustomTool => 'input_schema' in t && t.input_schema !== undefined);
}

/** True when the request names tools the vendor runs (web search, code execution, …). */
export function hasServerTools(request: MessagesRequest): boolean {
  return customTools(request).length < (request.tools?.length ?? 0);
}

/**
 * Maps a Messages request to the chat request the chat service admits and runs. `max_tokens`
 * stays the hold's bound; a thinking budget becomes the reasoning token budget.
 */
export function messagesToChat(request: MessagesRequest): Record<string, unknown> {
  const system = typeof request.system === 'string' ? request.system : request.system?.map((b) => b.text).join('\n');
  const body: Record<string, unknown> = {
    model: request.model,
    messages: [...(system ? [{ role: 'system', content: system }] : []), ...messagesToChatMessages(request.messages)],
    max_tokens: request.max_tokens,
    stream: request.stream === true,
  };
  const functions = customTools(request);
  if (functions.length > 0) {
    body.tools = functions.map((t) => ({ type: 'function', function: { name: t.name, ...(t.description ? { description: t.description } : {}), parameters: t.input_schema } }));
  }
  const choice = toolChoice(request.tool_choice);
  if (choice !== undefined && body.tools !== undefined) body.tool_choice = choice;
  if (request.thinking?.type === 'enabled') body.reasoning = { max_tokens: request.thinking.budget_tokens };
  if (request.stop_sequences?.length) body.stop = request.stop_sequences;
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (request.top_p !== undefined) body.top_p = request.top_p;
  return body;
}
