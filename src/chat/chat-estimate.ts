import { costOf } from '../billing/pricing.js';
import { formatUsd, type Nano } from '../billing/money.js';
import { promptTokenUpperBound } from '../billing/tokenizer.js';
import { promptTokenUpperBoundAsync } from '../billing/token-count-async.js';
import type { CatalogModel } from '../catalog/model-types.js';
import type { ChatMessage, ChatRequestBody } from '../providers/chat/chat-types.js';

/** Output limit of a model whose catalog entry has no context length. */
export const DEFAULT_OUTPUT_LIMIT = 32_768;

/** Most tokens one choice of the model may produce: its output limit, else its context, else a fixed cap. */
export function outputLimit(model: CatalogModel): number {
  return model.doc.max_output_tokens ?? model.doc.context_length ?? DEFAULT_OUTPUT_LIMIT;
}

/**
 * An upper bound of the prompt tokens, linear in the prompt's size (no BPE over long runs),
 * so the estimate can never stall the event loop.
 */
export function estimatePromptTokens(messages: readonly ChatMessage[]): number {
  return promptTokenUpperBound(messages);
}

/**
 * Completion tokens one choice may produce: the request's own limit within the model's, or the
 * limit the adapter sends upstream when that is larger (`upstreamLimit`, e.g. a thinking budget).
 */
export function completionTokensPerChoice(body: ChatRequestBody, model: CatalogModel, upstreamLimit = 0): number {
  const requested = body.max_completion_tokens ?? body.max_tokens;
  const limit = outputLimit(model);
  return Math.max(requested === undefined ? limit : Math.min(requested, limit), upstreamLimit);
}

/** Completion tokens of every choice together. */
export function estimateCompletionTokens(body: ChatRequestBody, model: CatalogModel, upstreamLimit = 0): number {
  return completionTokensPerChoice(body, model, upstreamLimit) * (body.n ?? 1);
}

/** The worst case of a chat request: prompt bound, completion bound and their cost. */
export interface ChatEstimate {
  promptTokens: number;
  completionTokens: number;
  estimate: Nano;
  /** Says what would fit into `room` nano-USD (the largest affordable `max_tokens`). */
  fit(room: Nano): string;
}

/** Largest per-choice `max_tokens` whose worst case costs at most `room` (0 when none fits). */
export function largestAffordableMaxTokens(model: CatalogModel, promptTokens: number, choices: number, room: Nano): number {
  const costWith = (perChoice: number): Nano => costOf(model, { prompt: promptTokens, completion: perChoice * choices });
  let low = 0;
  let high = outputLimit(model);
  if (costWith(0) > room) return 0;
  if (costWith(high) <= room) return high;
  // costOf is monotone in the completion count: find the last count that fits.
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (costWith(mid) <= room) low = mid;
    else high = mid - 1;
  }
  return low;
}

function describeFit(model: CatalogModel, body: ChatRequestBody, promptTokens: number, completionTokens: number, estimate: Nano, room: Nano): string {
  const choices = body.n ?? 1;
  const requested = `This request can cost up to $${formatUsd(estimate)} (${promptTokens} prompt tokens at most and ${completionTokens / choices} max_tokens${choices > 1 ? ` for each of ${choices} choices` : ''}).`;
  const fits = largestAffordableMaxTokens(model, promptTokens, choices, room);
  if (fits === 0) return `${requested} Not even the prompt fits the $${formatUsd(room > 0n ? room : 0n)} left.`;
  return `${requested} At most ${fits} max_tokens fit the $${formatUsd(room)} left; set max_tokens to ${fits} or less.`;
}

/** Worst-case cost of a chat request, nano-USD, for the admission hold. */
export function estimateChatCost(body: ChatRequestBody, model: CatalogModel): ChatEstimate {
  return estimateWithPrompt(body, model, estimatePromptTokens(body.messages));
}

/**
 * Like `estimateChatCost`, yielding to the event loop while bounding a long prompt; `upstreamLimit`
 * is the adapter's own output limit for the body when it sends a larger one than the client's.
 */
export async function estimateChatCostAsync(body: ChatRequestBody, model: CatalogModel, upstreamLimit = 0): Promise<ChatEstimate> {
  return estimateWithPrompt(body, model, await promptTokenUpperBoundAsync(body.messages), upstreamLimit);
}

function estimateWithPrompt(body: ChatRequestBody, model: CatalogModel, promptTokens: number, upstreamLimit = 0): ChatEstimate {
  const completionTokens = estimateCompletionTokens(body, model, upstreamLimit);
  const estimate = costOf(model, { prompt: promptTokens, completion: completionTokens });
  return { promptTokens, completionTokens, estimate, fit: (room) => describeFit(model, body, promptTokens, completionTokens, estimate, room) };
}
