import { ceilAttoToNano, formatUsd, holdUnitPrices, type Nano } from '../../billing/index.js';
import type { CatalogModel, PriceKey } from '../../catalog/index.js';
import type { ChatRequestBody } from '../../providers/index.js';
import { andThen, type MaybePromise } from '../../platform/util/index.js';
import { promptTokenBound, type HoldInputs } from './prompt-bound.js';

/** Output limit of a model whose catalog entry has no context length. */
export const DEFAULT_OUTPUT_LIMIT = 32_768;

/**
 * Nano-USD added to a hold so that rounding each billed line on its own (half up) can never
 * take a charge above the hold: at most half a nano-dollar per line, for every line there is.
 */
const ROUNDING_MARGIN = 8n;

/** Most tokens one choice of the model may produce: its output limit, else its context, else a fixed cap. */
export function outputLimit(model: CatalogModel): number {
  return model.doc.max_output_tokens ?? model.doc.context_length ?? DEFAULT_OUTPUT_LIMIT;
}

/**
 * The output limit a request asks for: the smaller of `max_completion_tokens` and `max_tokens`
 * when both are set (clients and vendors disagree on which wins, so the smaller is the only
 * safe reading), within the model's limit; the model's limit when neither is set.
 */
export function requestedOutputLimit(body: ChatRequestBody, model: CatalogModel): number {
  const asked = [body.max_completion_tokens, body.max_tokens].filter((n): n is number => n !== undefined);
  return Math.min(outputLimit(model), ...asked);
}

/**
 * Completion tokens one choice may produce: the requested limit, or the limit the adapter sends
 * upstream when that is larger (`upstreamLimit`, e.g. a thinking budget on top of the answer).
 */
export function completionTokensPerChoice(body: ChatRequestBody, model: CatalogModel, upstreamLimit = 0): number {
  return Math.max(requestedOutputLimit(body, model), upstreamLimit);
}

/** What a hold is made of: token bounds and server-side searches. */
export interface HoldUnits {
  promptTokens: number;
  /** Completion tokens of every choice together. */
  completionTokens: number;
  webSearches: number;
}

/**
 * The worst-case cost of some hold units: every input token at the dearest input price (a
 * token may turn out to be a cache write, dearer than plain input), every output token at the
 * dearest output price, every search and the call's fee, rounded up.
 */
export function holdCost(model: CatalogModel, units: HoldUnits): Nano {
  const total = holdParts(model, units).reduce((sum, part) => sum + part.amount, 0n);
  return total === 0n ? 0n : total + ROUNDING_MARGIN;
}

/** One part of a hold: units of a component at the price the hold counts them at. */
export interface HoldPart {
  readonly component: PriceKey;
  readonly units: number;
  readonly unitPrice: bigint;
  /** Rounded up to nano-USD. */
  readonly amount: Nano;
}

/** The parts {@link holdCost} sums (before its rounding margin), so a quote can show them. */
export function holdParts(model: CatalogModel, units: HoldUnits): HoldPart[] {
  const part = (component: PriceKey, count: number, unitPrice: bigint): HoldPart => ({ component, units: count, unitPrice, amount: ceilAttoToNano(BigInt(count) * unitPrice) });
  const prices = model.holdPrices ?? holdUnitPrices(model);
  return [
    part('prompt', units.promptTokens, prices.input),
    part('completion', units.completionTokens, prices.output),
    part('web_search', units.webSearches, prices.webSearch),
    part('request', 1, prices.request),
  ];
}

/** Nano-USD a non-zero hold adds for rounding (see ROUNDING_MARGIN). */
export function holdMargin(parts: readonly HoldPart[]): Nano {
  return parts.some((p) => p.amount > 0n) ? ROUNDING_MARGIN : 0n;
}

/** The worst case of a chat request: its hold units and their cost. */
export interface ChatEstimate extends HoldUnits {
  /** The output limit of one choice, as sent upstream. */
  perChoice: number;
  estimate: Nano;
  /** Says what would fit into `room` nano-USD (the largest affordable `max_tokens`). */
  fit(room: Nano): string;
}

/** Largest per-choice `max_tokens` whose worst case costs at most `room` (0 when none fits). */
export function largestAffordableMaxTokens(model: CatalogModel, units: HoldUnits, choices: number, room: Nano): number {
  const costWith = (perChoice: number): Nano => holdCost(model, { ...units, completionTokens: perChoice * choices });
  let low = 0;
  let high = outputLimit(model);
  if (costWith(0) > room) return 0;
  if (costWith(high) <= room) return high;
  // holdCost is monotone in the completion count: find the last count that fits.
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (costWith(mid) <= room) low = mid;
    else high = mid - 1;
  }
  return low;
}

function describeFit(model: CatalogModel, units: HoldUnits, choices: number, estimate: Nano, room: Nano): string {
  const perChoice = units.completionTokens / choices;
  const requested = `This request can cost up to $${formatUsd(estimate)} (${units.promptTokens} input tokens at most and ${perChoice} max_tokens${choices > 1 ? ` for each of ${choices} choices` : ''}).`;
  const fits = largestAffordableMaxTokens(model, units, choices, room);
  if (fits === 0) return `${requested} Not even the input fits the $${formatUsd(room > 0n ? room : 0n)} left.`;
  return `${requested} At most ${fits} max_tokens fit the $${formatUsd(room)} left; set max_tokens to ${fits} or less.`;
}

/** Server-side searches a request may run, as its front door allowed them (after the catalog's default). */
export interface SearchAllowance {
  readonly webSearches?: number;
}

/**
 * Worst-case cost of a chat request, nano-USD, for the admission hold: the bound of every
 * input it bills (see promptTokenBound), the output limit sent upstream for every choice
 * (`upstreamLimit` when the adapter sends a larger one than the client's), and the searches
 * its front door allowed. Linear in the request's size; a promise only for a prompt long
 * enough to yield to the event loop while it is bounded.
 */
export function estimateChatCost(body: ChatRequestBody, model: CatalogModel, upstreamLimit = 0, inputs: HoldInputs & SearchAllowance = {}): MaybePromise<ChatEstimate> {
  const choices = body.n ?? 1;
  const perChoice = completionTokensPerChoice(body, model, upstreamLimit);
  return andThen(promptTokenBound(body, model, inputs), (promptTokens) => {
    const units: HoldUnits = { promptTokens, completionTokens: perChoice * choices, webSearches: inputs.webSearches ?? 0 };
    const estimate = holdCost(model, units);
    return { ...units, perChoice, estimate, fit: (room: Nano) => describeFit(model, units, choices, estimate, room) };
  });
}
