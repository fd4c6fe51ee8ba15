import { GatewayError } from '../../platform/errors/index.js';
import type { ChatMessage, ContentPart } from '../chat/chat-types.js';
import type { JsonRecord } from '../http/narrow.js';

/** An Anthropic content block as sent in a request (kept loose: it only goes to JSON). */
type Block = JsonRecord;

/** One turn of the Messages API. */
export interface AnthropicTurn {
  role: 'user' | 'assistant';
  content: Block[];
}

/** The Messages API view of an OpenAI conversation. */
export interface AnthropicConversation {
  system: string | undefined;
  messages: AnthropicTurn[];
}

const DATA_URL = /^data:([^;,]+)(?:;[^,]*)?;base64,(.*)$/s;

function imageBlock(url: string, param: string): Block {
  if (url.startsWith('data:')) {
    const match = DATA_URL.exec(url);
    if (match === null || match[2] === '') {
      throw new GatewayError('invalid_request', 'Image data URLs must be base64 encoded (data:<type>;base64,...)', { param });
    }
    return { type: 'image', source: { type: 'base64', media_type: match[1], data: match[2] } };
  }
  return { type: 'image', source: { type: 'url', url } };
}

function partsToBlocks(content: ChatMessage['content'], param: string): Block[] {
  if (content === undefined || content === null) return [];
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  return content.flatMap((part: ContentPart, i): Block[] => {
    if (part.type === 'text') return part.text === '' ? [] : [{ type: 'text', text: part.text }];
    return [imageBlock(part.image_url.url, `${param}.${i}.image_url.url`)];
  });
}

function textOf(content: ChatMessage['content']): string {
  if (content === undefined || content === null) return '';
  if (typeof content === 'string') return content;
  return content.map((part) => (part.type === 'text' ? part.text : '')).join('');
}

function toolInput(args: string, param: string): unknown {
  if (args.trim() === '') return {};
  try {
    return JSON.parse(args) as unknown;
  } catch {
    throw new GatewayError('invalid_request', 'Tool call arguments must be valid JSON', { param });
  }
}

function assistantBlocks(message: ChatMessage, param: string): Block[] {
  // Reasoning from earlier turns is dropped: Anthropic only accepts its own signed thinking blocks.
  const blocks = partsToBlocks(message.content, `${param}.content`);
  (message.tool_calls ?? []).forEach((call, i) => {
    const input = toolInput(call.function.arguments, `${param}.tool_calls.${i}.function.arguments`);
    blocks.push({ type: 'tool_use', id: call.id, name: call.function.name, input });
  });
  return blocks;
}

function toolResultBlock(message: ChatMessage, param: string): Block {
  if (message.tool_call_id === undefined) {
    throw new GatewayError('invalid_request', 'Tool messages need a tool_call_id', { param: `${param}.tool_call_id` });
  }
  const content = partsToBlocks(message.content, `${param}.content`);
  return { type: 'tool_result', tool_use_id: message.tool_call_id, content };
}

function turnOf(message: ChatMessage, param: string): AnthropicTurn {
  if (message.role === 'assistant') return { role: 'assistant', content: assistantBlocks(message, param) };
  if (message.role === 'tool') return { role: 'user', content: [toolResultBlock(message, param)] };
  return { role: 'user', content: partsToBlocks(message.content, `${param}.content`) };
}

/**
 * Converts OpenAI messages: system and developer messages become the top-level `system`,
 * tool results become `tool_result` blocks in a user turn, and consecutive turns of the
 * same role are merged because the Messages API requires alternating roles.
 */
export function toAnthropicConversation(messages: readonly ChatMessage[]): AnthropicConversation {
  const system: string[] = [];
  const turns: AnthropicTurn[] = [];
  messages.forEach((message, i) => {
    if (message.role === 'system' || message.role === 'developer') {
      const text = textOf(message.content);
      if (text !== '') system.push(text);
      return;
    }
    const turn = turnOf(message, `messages.${i}`);
    if (turn.content.length === 0) return;
    const previous = turns.at(-1);
    if (previous !== undefined && previous.role === turn.role) previous.content.push(...turn.content);
    else turns.push(turn);
  });
  if (turns.length === 0) {
    throw new GatewayError('invalid_request', 'At least one user or assistant message with content is required', { param: 'messages' });
  }
  return { system: system.length === 0 ? undefined : system.join('\n\n'), messages: turns };
}
