import { type CostLine, costLinesWire, type CostLineWire, formatUsd, type Nano, toUsdNumber } from '../../billing/index.js';
import { type GatewayError, serializeError } from '../../platform/errors/index.js';
import type { ChatChoice, ChatDelta, TokenUsage } from '../../providers/index.js';

/** What every response and chunk of one completion shares. */
export interface CompletionMeta {
  /** `chatcmpl-…` */
  id: string;
  /** Unix seconds. */
  created: number;
  /** The catalog id that answered (never the upstream name). */
  model: string;
  /** The provider that served the answer, once a route was chosen. */
  provider?: string;
}

/** `provider` as OpenRouter sends it, when known. */
function providerField(meta: CompletionMeta): { provider?: string } {
  return meta.provider === undefined ? {} : { provider: meta.provider };
}

/**
 * The `usage` object clients see: OpenAI's token counts and details (cache reads as
 * `cached_tokens`, cache writes as `cache_write_tokens`, reasoning), server-side searches, the
 * billed `cost` (USD as a JSON number) and `cost_details`, one line per billed component,
 * whose amounts add up to `cost` exactly.
 */
export interface UsageWire {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details: { cached_tokens: number; cache_write_tokens: number };
  completion_tokens_details: { reasoning_tokens: number };
  server_tool_use?: { web_search_requests: number };
  cost: number;
  cost_details: CostLineWire[];
}

/** What a request was billed: the usage, the cost and its lines (see Settled). */
export interface BilledUsage {
  readonly usage: TokenUsage;
  readonly cost: Nano;
  readonly lines: readonly CostLine[];
  /** Metered cost beyond the hold, not billed: shown as a line that takes it off. */
  readonly overLimit: Nano;
}

/** The line that takes metered cost beyond the hold off the bill. */
function overLimitLine(overLimit: Nano): CostLineWire {
  return { component: 'upstream_over_limit', units: 0, unit_price_usd: '0', amount_usd: formatUsd(-overLimit) };
}

/** Builds the wire usage of a billed request. */
export function usageWire(billed: BilledUsage): UsageWire {
  const { usage } = billed;
  const wire: UsageWire = {
    prompt_tokens: usage.promptTokens,
    completion_tokens: usage.completionTokens,
    total_tokens: usage.promptTokens + usage.completionTokens,
    prompt_tokens_details: { cached_tokens: usage.cachedTokens ?? 0, cache_write_tokens: (usage.cacheWriteTokens ?? 0) + (usage.cacheWrite1hTokens ?? 0) },
    completion_tokens_details: { reasoning_tokens: usage.reasoningTokens },
    cost: toUsdNumber(billed.cost),
    cost_details: [...costLinesWire(billed.lines), ...(billed.overLimit > 0n ? [overLimitLine(billed.overLimit)] : [])],
  };
  if ((usage.webSearches ?? 0) > 0) wire.server_tool_use = { web_search_requests: usage.webSearches ?? 0 };
  return wire;
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
  return { ...extra, id: meta.id, object: 'chat.completion', created: meta.created, model: meta.model, ...providerField(meta), choices: choices.map(choiceWire), usage };
}

/** One `chat.completion.chunk` carrying deltas. */
export function chunkWire(meta: CompletionMeta, choices: readonly ChatDelta[]): Record<string, unknown> {
  return { id: meta.id, object: 'chat.completion.chunk', created: meta.created, model: meta.model, ...providerField(meta), choices: choices.map(deltaWire) };
}

/** The final usage chunk (`choices: []`), sent before `[DONE]` on every stream. */
export function usageChunkWire(meta: CompletionMeta, usage: UsageWire): Record<string, unknown> {
  return { id: meta.id, object: 'chat.completion.chunk', created: meta.created, model: meta.model, ...providerField(meta), choices: [], usage };
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
