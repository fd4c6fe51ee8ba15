import { sseEvents, type RecordedFixture } from '../../fixtures/recorded/recorded-fixtures.js';
import type { Prices } from '../../fixtures/recorded/recorded-gateway.js';

/**
 * The bill a recorded answer must come to, worked out by hand from the fixture's raw JSON and
 * the vendor's documented usage semantics, with plain BigInt arithmetic on decimal prices: no
 * code from src/ is used, so a wrong mapping or rounding in the gateway shows as a mismatch.
 */


/** Components of one recorded answer: units by price key (zero units left out). */
export type Units = Record<string, number>;

/** One expected line: units, and the amount in nano-USD. */
export interface ExpectedLine {
  component: string;
  units: number;
  nano: bigint;
}

/** What a recorded answer must be billed, and the numbers it is billed from. */
export interface Expected {
  units: Units;
  lines: ExpectedLine[];
  /** The sum of the lines, nano-USD. */
  cost: bigint;
  /** What clients must see as counts. */
  cached: number;
  cacheWrites: number;
  /** Reasoning tokens the vendor reported (undefined: the vendor does not break them out). */
  reasoning: number | undefined;
  webSearches: number;
  /** The upstream's own usage object, as recorded (for the table). */
  upstream: unknown;
}

const ATTO_PER_USD = 10n ** 18n;
const ATTO_PER_NANO = 10n ** 9n;

/** Exact atto-USD of a decimal USD string (at most 18 decimals). */
export function attoOf(usd: string): bigint {
  const [whole = '0', fraction = ''] = usd.split('.');
  return BigInt(whole) * ATTO_PER_USD + BigInt(fraction.padEnd(18, '0'));
}

/** Exact nano-USD of a decimal USD string with at most 9 decimals (a `cost_details` amount). */
export function nanoOfText(usd: string): bigint {
  const negative = usd.startsWith('-');
  const [whole = '0', fraction = ''] = usd.replace(/^-/, '').split('.');
  if (fraction.length > 9) throw new Error(`more than nine decimals: ${usd}`);
  const nano = BigInt(whole) * ATTO_PER_NANO + BigInt(fraction.padEnd(9, '0'));
  return negative ? -nano : nano;
}

type Json = Record<string, unknown>;
const rec = (v: unknown): Json => (typeof v === 'object' && v !== null ? (v as Json) : {});
const num = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined);

/**
 * OpenAI-style usage: cache reads (`prompt_tokens_details.cached_tokens`, DeepSeek's
 * `prompt_cache_hit_tokens`) and writes (`cache_write_tokens`) are inside `prompt_tokens`.
 * Reasoning is inside `completion_tokens` (OpenAI, DeepSeek) unless `total_tokens` exceeds
 * prompt + completion (xAI, Gemini): then the excess is the reasoning, billed on top.
 */
function openAiUnits(usage: Json): { units: Units; cached: number; writes: number; reasoning: number } {
  const prompt = num(usage.prompt_tokens) ?? 0;
  const completion = num(usage.completion_tokens) ?? 0;
  const details = rec(usage.prompt_tokens_details);
  const cached = num(details.cached_tokens) ?? num(usage.prompt_cache_hit_tokens) ?? 0;
  const writes = num(details.cache_write_tokens) ?? 0;
  const outside = Math.max(0, (num(usage.total_tokens) ?? 0) - prompt - completion);
  const inside = num(rec(usage.completion_tokens_details).reasoning_tokens) ?? 0;
  const reasoning = outside > 0 ? outside : inside;
  const visible = outside > 0 ? completion : completion - inside;
  const units = { prompt: prompt - cached - writes, completion: visible, internal_reasoning: reasoning, input_cache_read: cached, input_cache_write: writes };
  return { units, cached, writes, reasoning };
}

/**
 * Anthropic usage: `input_tokens` excludes the cache; reads and the 5-minute / 1-hour writes
 * (`cache_creation`, or the older total as 5-minute writes) come apart; thinking is inside
 * `output_tokens`; searches are `server_tool_use.web_search_requests`. A stream's later
 * `message_delta` usage restates the counts, field by field.
 */
function anthropicUnits(usage: Json): { units: Units; cached: number; writes: number; searches: number } {
  const split = rec(usage.cache_creation);
  const w5 = num(split.ephemeral_5m_input_tokens) ?? num(usage.cache_creation_input_tokens) ?? 0;
  const w1 = num(split.ephemeral_1h_input_tokens) ?? 0;
  const cached = num(usage.cache_read_input_tokens) ?? 0;
  const searches = num(rec(usage.server_tool_use).web_search_requests) ?? 0;
  const units = { prompt: num(usage.input_tokens) ?? 0, completion: num(usage.output_tokens) ?? 0, input_cache_read: cached, input_cache_write: w5, input_cache_write_1h: w1, web_search: searches };
  return { units, cached, writes: w5 + w1, searches };
}

/** The final usage object of a recorded answer, as the vendor reported it. */
export function recordedUsage(fixture: RecordedFixture): Json {
  if (fixture.meta.kind === 'json') return rec(rec(fixture.body).usage);
  const events = sseEvents(fixture.text, { keepUnterminated: true }).filter((e) => e.data !== '[DONE]').map((e) => rec(JSON.parse(e.data)));
  if (fixture.meta.route === 'openai-chat') return rec([...events].reverse().find((e) => e.usage !== undefined && e.usage !== null)?.usage);
  const start = rec(rec(events.find((e) => e.type === 'message_start')?.message).usage);
  const delta = rec(events.find((e) => e.type === 'message_delta')?.usage);
  // A delta without the 5m/1h split restates the total: the split of message_start no longer holds.
  const merged = { ...start, ...delta };
  if (delta.cache_creation_input_tokens !== undefined && delta.cache_creation === undefined) delete merged.cache_creation;
  return merged;
}

/** Half-up rounding of atto-USD to nano-USD (the amount of one line). */
function toNano(atto: bigint): bigint {
  return (atto + ATTO_PER_NANO / 2n) / ATTO_PER_NANO;
}

/** The price of a key: its own, else the key it refines (reasoning → completion, cache → prompt). */
function priceOf(prices: Prices, key: string): string {
  const fallback: Record<string, string> = { internal_reasoning: 'completion', input_cache_read: 'prompt', input_cache_write: 'prompt', input_cache_write_1h: 'input_cache_write' };
  const found = prices[key] ?? (fallback[key] !== undefined ? priceOf(prices, fallback[key]) : undefined);
  if (found === undefined) throw new Error(`no price for ${key}`);
  return found;
}

/** The expected bill of a recorded answer at some catalog prices. */
export function expectedBill(fixture: RecordedFixture, prices: Prices): Expected {
  const upstream = recordedUsage(fixture);
  const anthropic = fixture.meta.route === 'anthropic-messages';
  const read = anthropic ? anthropicUnits(upstream) : openAiUnits(upstream);
  const units: Units = {};
  for (const [key, count] of Object.entries(read.units)) if (count > 0) units[key] = count;
  if (prices.request !== undefined) units.request = 1;
  const lines = Object.entries(units).map(([component, count]) => ({ component, units: count, nano: toNano(attoOf(priceOf(prices, component)) * BigInt(count)) }));
  return {
    units,
    lines,
    cost: lines.reduce((sum, line) => sum + line.nano, 0n),
    cached: read.cached,
    cacheWrites: read.writes,
    reasoning: 'reasoning' in read ? read.reasoning : undefined,
    webSearches: 'searches' in read ? read.searches : 0,
    upstream,
  };
}
