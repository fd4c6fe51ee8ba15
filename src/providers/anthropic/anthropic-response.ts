import { GatewayError } from '../../platform/errors/index.js';
import { countTokens } from '../../billing/index.js';
import type { ChatResult, TokenUsage, ToolCall } from '../chat/chat-types.js';
import { arrayAt, isRecord, numberAt, recordAt, stringAt, type JsonRecord } from '../http/narrow.js';

/** Anthropic `stop_reason` → OpenAI `finish_reason`. */
const FINISH_REASONS: Readonly<Record<string, string>> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  pause_turn: 'stop',
  max_tokens: 'length',
  model_context_window_exceeded: 'length',
  tool_use: 'tool_calls',
  refusal: 'content_filter',
};

/** Maps a stop reason; unknown reasons end the turn normally. */
export function finishReason(stopReason: string | undefined): string | null {
  if (stopReason === undefined) return null;
  return FINISH_REASONS[stopReason] ?? 'stop';
}

/**
 * The counts of an Anthropic `usage` object, as far as it reports them. Unlike OpenAI,
 * `input_tokens` leaves out the cache: reads and writes (5-minute and 1-hour) come apart.
 */
export interface AnthropicTokenCounts {
  input?: number;
  cacheRead?: number;
  cacheWrite5m?: number;
  cacheWrite1h?: number;
  output?: number;
  webSearches?: number;
}

function cacheWrites(usage: JsonRecord): Pick<AnthropicTokenCounts, 'cacheWrite5m' | 'cacheWrite1h'> {
  const split = recordAt(usage, 'cache_creation');
  const fiveMinutes = numberAt(split, 'ephemeral_5m_input_tokens');
  const oneHour = numberAt(split, 'ephemeral_1h_input_tokens');
  // Older answers give only the total, which is billed as 5-minute writes.
  if (fiveMinutes === undefined && oneHour === undefined) {
    const total = numberAt(usage, 'cache_creation_input_tokens');
    return total === undefined ? {} : { cacheWrite5m: total };
  }
  return { cacheWrite5m: fiveMinutes ?? 0, cacheWrite1h: oneHour ?? 0 };
}

/**
 * Reads the counts present in an Anthropic `usage` object. Later reports of a stream restate
 * earlier ones (`message_delta` may restate the input, larger after server tools ran), so
 * merge them field by field, the later winning.
 */
export function readAnthropicUsage(usage: unknown): AnthropicTokenCounts {
  if (!isRecord(usage)) return {};
  const out: AnthropicTokenCounts = { ...cacheWrites(usage) };
  const fields: Array<[keyof AnthropicTokenCounts, number | undefined]> = [
    ['input', numberAt(usage, 'input_tokens')],
    ['cacheRead', numberAt(usage, 'cache_read_input_tokens')],
    ['output', numberAt(usage, 'output_tokens')],
    ['webSearches', numberAt(recordAt(usage, 'server_tool_use'), 'web_search_requests')],
  ];
  for (const [field, value] of fields) if (value !== undefined) out[field] = value;
  return out;
}

/**
 * Builds TokenUsage from Anthropic's counts: input = plain input + cache reads + cache writes.
 * Anthropic counts thinking inside output tokens without breaking it out, so reasoning
 * tokens are the thinking text counted locally, capped at the output. Undefined until the
 * upstream reported its input count.
 */
export function toTokenUsage(counts: AnthropicTokenCounts, thinkingText: string): TokenUsage | undefined {
  if (counts.input === undefined) return undefined;
  const [read, w5, w1] = [counts.cacheRead ?? 0, counts.cacheWrite5m ?? 0, counts.cacheWrite1h ?? 0];
  const completionTokens = counts.output ?? 0;
  const usage: TokenUsage = {
    promptTokens: counts.input + read + w5 + w1,
    completionTokens,
    reasoningTokens: Math.min(completionTokens, countTokens(thinkingText)),
  };
  if (read > 0) usage.cachedTokens = read;
  if (w5 > 0) usage.cacheWriteTokens = w5;
  if (w1 > 0) usage.cacheWrite1hTokens = w1;
  if ((counts.webSearches ?? 0) > 0) usage.webSearches = counts.webSearches;
  return usage;
}

function toolCall(block: JsonRecord): ToolCall {
  return {
    id: stringAt(block, 'id') ?? '',
    type: 'function',
    function: { name: stringAt(block, 'name') ?? '', arguments: JSON.stringify(block.input ?? {}) },
  };
}

/** Maps a non-streamed Messages API response to a ChatResult. */
export function fromAnthropicResponse(json: unknown): ChatResult {
  const blocks = arrayAt(json, 'content');
  if (!isRecord(json) || blocks === undefined) {
    throw new GatewayError('upstream_error', 'The upstream provider answered without content');
  }
  let text = '';
  let thinking = '';
  const toolCalls: ToolCall[] = [];
  for (const block of blocks.filter(isRecord)) {
    const type = stringAt(block, 'type');
    if (type === 'text') text += stringAt(block, 'text') ?? '';
    else if (type === 'thinking') thinking += stringAt(block, 'thinking') ?? '';
    else if (type === 'tool_use') toolCalls.push(toolCall(block));
  }
  const message: ChatResult['choices'][number]['message'] = { role: 'assistant', content: text === '' && toolCalls.length > 0 ? null : text };
  if (thinking !== '') message.reasoning = thinking;
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  const usage = toTokenUsage(readAnthropicUsage(json.usage), thinking);
  const choices = [{ index: 0, message, finish_reason: finishReason(stringAt(json, 'stop_reason')) }];
  return usage === undefined ? { choices } : { choices, usage };
}
