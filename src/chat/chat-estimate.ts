import { costOf } from '../billing/pricing.js';
import type { Nano } from '../billing/money.js';
import { countMessageTokens } from '../billing/tokenizer.js';
import type { CatalogModel } from '../catalog/model-types.js';
import type { ChatMessage, ChatRequestBody } from '../providers/chat/chat-types.js';

/** Output assumed when the client sets no limit (bounded by the model's context). */
export const DEFAULT_COMPLETION_ESTIMATE = 4_096;
/** Above this many characters the prompt is not tokenized for the hold: its length bounds it. */
const TOKENIZE_LIMIT_CHARS = 200_000;

function promptChars(messages: readonly ChatMessage[]): number {
  let chars = 0;
  for (const message of messages) {
    const content = message.content;
    if (typeof content === 'string') chars += content.length;
    else if (Array.isArray(content)) for (const part of content) chars += part.type === 'text' ? part.text.length : 0;
  }
  return chars;
}

/**
 * Prompt tokens for the admission hold. Huge prompts are bounded by their character count
 * (a token is rarely shorter than a character) so one request cannot stall the event loop.
 */
export function estimatePromptTokens(messages: readonly ChatMessage[]): number {
  const chars = promptChars(messages);
  return chars > TOKENIZE_LIMIT_CHARS ? chars + messages.length * 8 : countMessageTokens(messages);
}

/** Completion tokens the request may produce: its own limit, else a default, within the context. */
export function estimateCompletionTokens(body: ChatRequestBody, model: CatalogModel, promptTokens: number): number {
  const requested = body.max_completion_tokens ?? body.max_tokens ?? DEFAULT_COMPLETION_ESTIMATE;
  const perChoice = model.doc.context_length === null ? requested : Math.min(requested, Math.max(1, model.doc.context_length - promptTokens));
  return perChoice * (body.n ?? 1);
}

/** Worst-case cost of a chat request, nano-USD, for the admission hold. */
export function estimateChatCost(body: ChatRequestBody, model: CatalogModel): { promptTokens: number; estimate: Nano } {
  const promptTokens = estimatePromptTokens(body.messages);
  const completion = estimateCompletionTokens(body, model, promptTokens);
  return { promptTokens, estimate: costOf(model, { prompt: promptTokens, completion }) };
}
