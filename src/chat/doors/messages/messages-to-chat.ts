import type { ChatMessage, ContentPart, ToolCall } from '../../../providers/index.js';
import { MAX_STOP_SEQUENCES } from '../../wire/chat-schema.js';
import { TRANSLATED_BLOCK_TYPES, type AnyContentBlock, type ContentBlock, type MessagesMessage, type MessagesRequest } from './messages-schema.js';

function imagePart(block: Extract<ContentBlock, { type: 'image' }>): ContentPart {
  const source = block.source;
  const url = source.type === 'base64' ? `data:${source.media_type};base64,${source.data}` : source.url;
  return { type: 'image_url', image_url: { url } };
}

function resultText(block: Extract<ContentBlock, { type: 'tool_result' }>): string {
  const content = block.content ?? '';
  const text = typeof content === 'string' ? content : content.map((b) => (b.type === 'text' && typeof b.text === 'string' ? b.text : '')).join('');
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
    // A system turn mid-conversation stays system content where it stands.
    if (m.role === 'system') return [{ role: 'system', content: m.content.map((b) => b.text).join('\n') }];
    const blocks = m.content.filter(isTranslated);
    const mapped = m.role === 'user' ? userMessages(blocks) : [assistantMessage(blocks)];
    const others = m.content.filter((block) => !isTranslated(block));
    return others.length === 0 ? mapped : [...mapped, { role: m.role, content: JSON.stringify(others) }];
  });
}

/** Blocks whose content is a file the vendor reads itself: no text form carries them to another kind. */
const FILE_BLOCKS: ReadonlySet<string> = new Set(['document', 'container_upload']);

/**
 * Where the request carries what only a provider speaking the Messages API can read (a
 * document or an uploaded file), as a parameter path; undefined when the whole request
 * translates to chat. Server tools are left out of a translated request instead (see
 * serverToolTypes), and other vendor blocks (search results, server tool calls and their
 * results) travel as their JSON text.
 */
export function untranslatableParam(request: MessagesRequest): string | undefined {
  for (const [i, message] of request.messages.entries()) {
    if (typeof message.content === 'string' || message.role === 'system') continue;
    const j = message.content.findIndex((block) => FILE_BLOCKS.has(block.type));
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

/** True for the client's own tools (with an input schema); any other is a server tool the vendor runs. */
export function isCustomTool(tool: NonNullable<MessagesRequest['tools']>[number]): tool is CustomTool {
  return 'input_schema' in tool && tool.input_schema !== undefined;
}

/** The request's own tools (with an input schema), which map to functions. */
export function customTools(request: MessagesRequest): CustomTool[] {
  return (request.tools ?? []).filter(isCustomTool);
}

/** The types of the tools the vendor runs itself (web search, code execution, …) that the request offers. */
export function serverToolTypes(request: MessagesRequest): string[] {
  return (request.tools ?? []).flatMap((t) => (isCustomTool(t) ? [] : [String(t.type)]));
}

/** Anthropic's effort levels as the chat request's reasoning effort. */
const EFFORT_OF_ANTHROPIC: Readonly<Record<string, 'low' | 'medium' | 'high'>> = { low: 'low', medium: 'medium', high: 'high', xhigh: 'high', max: 'high' };

/**
 * The thinking setting as chat reasoning: a budget stays a budget; `adaptive` (the model
 * decides how much to think) becomes the effort of `output_config.effort`, medium by default,
 * and `display: "omitted"` keeps the thinking text out of the answer.
 */
function reasoningOf(request: MessagesRequest): Record<string, unknown> | undefined {
  const thinking = request.thinking;
  if (thinking?.type === 'enabled' && 'budget_tokens' in thinking) return { max_tokens: thinking.budget_tokens };
  if (thinking?.type !== 'adaptive') return undefined;
  const effort = EFFORT_OF_ANTHROPIC[request.output_config?.effort ?? ''] ?? 'medium';
  return { effort, ...('display' in thinking && thinking.display === 'omitted' ? { exclude: true } : {}) };
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
  const reasoning = reasoningOf(request);
  if (reasoning !== undefined) body.reasoning = reasoning;
  // Chat takes at most four stop sequences; the first four are the ones a translation keeps.
  if (request.stop_sequences?.length) body.stop = request.stop_sequences.slice(0, MAX_STOP_SEQUENCES);
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (request.top_p !== undefined) body.top_p = request.top_p;
  return body;
}
