import { toUsdNumber, type Nano } from '../billing/money.js';
import type { GatewayError } from '../errors/gateway-error.js';
import { serializeError } from '../errors/serialize.js';
import type { ChatChoice, ChatDelta, TokenUsage } from '../providers/chat/chat-types.js';

/** What every response and chunk of one completion shares. */
export interface CompletionMeta {
  /** `chatcmpl-…` */
  id: string;
  /** Unix seconds. */
  created: number;
  /** The catalog id the client asked for (never the upstream name). */
  model: string;
}

/** The `usage` object clients see, cost included (USD as a JSON number). */
export interface UsageWire {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  completion_tokens_details: { reasoning_tokens: number };
  cost: number;
}

/** Builds the wire usage from token counts and the exact charged cost. */
export function usageWire(usage: TokenUsage, cost: Nano): UsageWire {
  return {
    prompt_tokens: usage.promptTokens,
    completion_tokens: usage.completionTokens,
    total_tokens: usage.promptTokens + usage.completionTokens,
    completion_tokens_details: { reasoning_tokens: usage.reasoningTokens },
    cost: toUsdNumber(cost),
  };
}

/**
 * One choice as clients see it: the fields the OpenAI spec requires are always there
 * (`logprobs` and `message.refusal`, null when none), and reasoning goes out under both names
 * clients read: `reasoning` (OpenRouter) and `reasoning_content` (DeepSeek, vLLM, LangChain).
 */
export function choiceWire(choice: ChatChoice): Record<string, unknown> {
  const { reasoning, refusal, ...message } = choice.message;
  const shown: Record<string, unknown> = { ...message, refusal: refusal ?? null };
  if (reasoning !== undefined) {
    shown.reasoning = reasoning;
    shown.reasoning_content = reasoning;
  }
  return { index: choice.index, message: shown, logprobs: choice.logprobs ?? null, finish_reason: choice.finish_reason };
}

/** One streamed choice as clients see it: reasoning under both names, logprobs when sent. */
export function deltaWire(choice: ChatDelta): Record<string, unknown> {
  const { reasoning, ...delta } = choice.delta;
  const shown: Record<string, unknown> = reasoning === undefined ? delta : { ...delta, reasoning, reasoning_content: reasoning };
  const out: Record<string, unknown> = { index: choice.index, delta: shown, finish_reason: choice.finish_reason };
  if (choice.logprobs !== undefined) out.logprobs = choice.logprobs;
  return out;
}

/** A non-streamed `chat.completion` body. */
export function completionWire(
  meta: CompletionMeta,
  choices: readonly ChatChoice[],
  usage: UsageWire,
  extra: Readonly<Record<string, unknown>> = {},
): Record<string, unknown> {
  return { ...extra, id: meta.id, object: 'chat.completion', created: meta.created, model: meta.model, choices: choices.map(choiceWire), usage };
}

/** One `chat.completion.chunk` carrying deltas. */
export function chunkWire(meta: CompletionMeta, choices: readonly ChatDelta[]): Record<string, unknown> {
  return { id: meta.id, object: 'chat.completion.chunk', created: meta.created, model: meta.model, choices: choices.map(deltaWire) };
}

/** The final usage chunk (`choices: []`), sent before `[DONE]` on every stream. */
export function usageChunkWire(meta: CompletionMeta, usage: UsageWire): Record<string, unknown> {
  return { id: meta.id, object: 'chat.completion.chunk', created: meta.created, model: meta.model, choices: [], usage };
}

/** The chunk that reports an error after the stream started. */
export function errorChunkWire(meta: CompletionMeta, err: GatewayError): Record<string, unknown> {
  return {
    ...serializeError(err),
    id: meta.id,
    object: 'chat.completion.chunk',
    created: meta.created,
    model: meta.model,
    choices: [{ index: 0, delta: {}, finish_reason: 'error' }],
  };
}
