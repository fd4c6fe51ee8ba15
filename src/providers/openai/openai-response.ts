import { GatewayError } from '../../platform/errors/index.js';
import type { ChatChoice, ChatResult, TokenUsage, ToolCall } from '../chat/chat-types.js';
import { arrayAt, isRecord, numberAt, recordAt, stringAt, type JsonRecord } from '../http/narrow.js';

/** Response fields passed on to clients beside choices and usage. */
const PASSED_ON_FIELDS = ['system_fingerprint', 'service_tier'] as const;

/**
 * Reads an OpenAI-style `usage` object, whichever compatible vendor sent it; undefined if
 * absent. Cache reads come as `prompt_tokens_details.cached_tokens` (OpenAI, xAI, Mistral,
 * Groq) or `prompt_cache_hit_tokens` (DeepSeek), cache writes as
 * `prompt_tokens_details.cache_write_tokens`; all are inside `prompt_tokens`. Reasoning is
 * inside `completion_tokens` for OpenAI and DeepSeek, but xAI and Gemini leave it out and
 * count it only in `total_tokens`: whatever the total holds beyond prompt and completion is
 * reasoning output, and is added back.
 */
export function readOpenAiUsage(value: unknown): TokenUsage | undefined {
  if (!isRecord(value)) return undefined;
  const promptTokens = numberAt(value, 'prompt_tokens');
  const completionTokens = numberAt(value, 'completion_tokens');
  if (promptTokens === undefined || completionTokens === undefined) return undefined;
  const details = recordAt(value, 'prompt_tokens_details');
  const reported = numberAt(recordAt(value, 'completion_tokens_details'), 'reasoning_tokens') ?? 0;
  const total = numberAt(value, 'total_tokens');
  const outside = total !== undefined && total > promptTokens + completionTokens ? total - promptTokens - completionTokens : 0;
  const usage: TokenUsage = {
    promptTokens,
    completionTokens: completionTokens + outside,
    reasoningTokens: outside > 0 ? Math.max(outside, Math.min(reported, outside)) : reported,
  };
  const cached = numberAt(details, 'cached_tokens') ?? numberAt(value, 'prompt_cache_hit_tokens');
  if (cached !== undefined && cached > 0) usage.cachedTokens = cached;
  const writes = numberAt(details, 'cache_write_tokens');
  if (writes !== undefined && writes > 0) usage.cacheWriteTokens = writes;
  return usage;
}

/** Reasoning text under either name compatible vendors use (`reasoning`, `reasoning_content`). */
export function readReasoningText(value: JsonRecord): string | undefined {
  return stringAt(value, 'reasoning') ?? stringAt(value, 'reasoning_content');
}

function readToolCalls(message: JsonRecord): ToolCall[] | undefined {
  const calls = arrayAt(message, 'tool_calls');
  if (calls === undefined || calls.length === 0) return undefined;
  return calls.filter(isRecord).map((call) => ({
    id: stringAt(call, 'id') ?? '',
    type: 'function' as const,
    function: {
      name: stringAt(recordAt(call, 'function'), 'name') ?? '',
      arguments: stringAt(recordAt(call, 'function'), 'arguments') ?? '',
    },
  }));
}

function readChoice(value: unknown, position: number): ChatChoice {
  const message = recordAt(value, 'message');
  if (!isRecord(value) || message === undefined) {
    throw new GatewayError('upstream_error', 'The upstream provider answered with a malformed choice');
  }
  const content = message.content;
  const out: ChatChoice['message'] = { role: 'assistant', content: typeof content === 'string' ? content : null };
  const reasoning = readReasoningText(message);
  if (reasoning !== undefined) out.reasoning = reasoning;
  const toolCalls = readToolCalls(message);
  if (toolCalls !== undefined) out.tool_calls = toolCalls;
  if (typeof message.refusal === 'string' || message.refusal === null) out.refusal = message.refusal;
  const annotations = arrayAt(message, 'annotations');
  if (annotations !== undefined) out.annotations = annotations;
  const choice: ChatChoice = {
    index: numberAt(value, 'index') ?? position,
    message: out,
    finish_reason: stringAt(value, 'finish_reason') ?? null,
  };
  if (value.logprobs !== undefined) choice.logprobs = value.logprobs;
  return choice;
}

/** Maps a non-streamed OpenAI chat completion to a ChatResult (usage only if the upstream sent it). */
export function fromOpenAiResponse(json: unknown): ChatResult {
  const rawChoices = arrayAt(json, 'choices');
  if (!isRecord(json) || rawChoices === undefined) {
    throw new GatewayError('upstream_error', 'The upstream provider answered without choices');
  }
  const choices = rawChoices.map(readChoice);
  const usage = readOpenAiUsage(json.usage);
  const extra: JsonRecord = {};
  for (const field of PASSED_ON_FIELDS) if (json[field] !== undefined && json[field] !== null) extra[field] = json[field];
  return { choices, ...(usage !== undefined ? { usage } : {}), ...(Object.keys(extra).length > 0 ? { extra } : {}) };
}
