import { GatewayError } from '../../errors/gateway-error.js';
import { countTokens } from '../../billing/tokenizer.js';
import type { ChatResult, TokenUsage, ToolCall } from '../chat/chat-types.js';
import { arrayAt, isRecord, numberAt, stringAt, type JsonRecord } from '../http/narrow.js';

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

/** Token counts in Anthropic `usage`: prompt = input + cache writes + cache reads. */
export interface AnthropicTokenCounts {
  input?: number;
  output?: number;
}

/** Reads the token fields present in an Anthropic `usage` object. */
export function readAnthropicUsage(usage: unknown): AnthropicTokenCounts {
  if (!isRecord(usage)) return {};
  const input = numberAt(usage, 'input_tokens');
  const cached = (numberAt(usage, 'cache_creation_input_tokens') ?? 0) + (numberAt(usage, 'cache_read_input_tokens') ?? 0);
  const out: AnthropicTokenCounts = {};
  if (input !== undefined) out.input = input + cached;
  const output = numberAt(usage, 'output_tokens');
  if (output !== undefined) out.output = output;
  return out;
}

/**
 * Builds TokenUsage. Anthropic counts thinking inside output tokens without breaking it out,
 * so reasoning tokens are the thinking text counted locally, capped at the output.
 */
export function toTokenUsage(counts: AnthropicTokenCounts, thinkingText: string): TokenUsage {
  const completionTokens = counts.output ?? 0;
  return {
    promptTokens: counts.input ?? 0,
    completionTokens,
    reasoningTokens: Math.min(completionTokens, countTokens(thinkingText)),
  };
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
  return {
    choices: [{ index: 0, message, finish_reason: finishReason(stringAt(json, 'stop_reason')) }],
    usage: toTokenUsage(readAnthropicUsage(json.usage), thinking),
  };
}
