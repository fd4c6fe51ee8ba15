import { countTokens as countO200k } from 'gpt-tokenizer/encoding/o200k_base';
import type { ChatMessage } from '../providers/chat/chat-types.js';

// Client text may contain strings like "<|endoftext|>"; they are counted as plain text
// instead of being rejected.
const PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

/** Per-message framing overhead of the chat format (role markers, separators). */
const TOKENS_PER_MESSAGE = 3;
/** Tokens that prime the assistant's reply. */
const REPLY_PRIMING_TOKENS = 3;
/** Flat estimate per image part (OpenAI's low-detail cost); exact counts need the pixels. */
const TOKENS_PER_IMAGE = 85;

/** Counts tokens of a text with the o200k_base encoding (bundled, no download). */
export function countTokens(text: string): number {
  if (text === '') return 0;
  return countO200k(text, PLAIN_TEXT);
}

function contentTokens(content: ChatMessage['content']): number {
  if (content === undefined || content === null) return 0;
  if (typeof content === 'string') return countTokens(content);
  let total = 0;
  for (const part of content) total += part.type === 'text' ? countTokens(part.text) : TOKENS_PER_IMAGE;
  return total;
}

/**
 * Counts the prompt tokens of a conversation the way OpenAI's chat format frames it: text,
 * names, tool calls and a flat amount per image. Used when an upstream reports no usage.
 */
export function countMessageTokens(messages: readonly ChatMessage[]): number {
  let total = REPLY_PRIMING_TOKENS;
  for (const message of messages) {
    total += TOKENS_PER_MESSAGE + countTokens(message.role) + contentTokens(message.content);
    if (typeof message.name === 'string') total += countTokens(message.name) + 1;
    for (const call of message.tool_calls ?? []) {
      total += countTokens(call.function.name) + countTokens(call.function.arguments);
    }
  }
  return total;
}
