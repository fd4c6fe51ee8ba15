import { GatewayError } from '../../errors/gateway-error.js';
import { countMessageTokens, countTokens } from '../../billing/tokenizer.js';
import type { ChatChoice, ChatMessage, ChatResult, TokenUsage, ToolCall } from '../chat/chat-types.js';
import { arrayAt, isRecord, numberAt, recordAt, stringAt, type JsonRecord } from '../http/narrow.js';

/** Response fields passed on to clients beside choices and usage. */
const PASSED_ON_FIELDS = ['system_fingerprint', 'service_tier'] as const;

/** Reads OpenAI `usage` (and `completion_tokens_details.reasoning_tokens`); undefined if absent. */
export function readOpenAiUsage(value: unknown): TokenUsage | undefined {
  if (!isRecord(value)) return undefined;
  const promptTokens = numberAt(value, 'prompt_tokens');
  const completionTokens = numberAt(value, 'completion_tokens');
  if (promptTokens === undefined || completionTokens === undefined) return undefined;
  const reasoningTokens = numberAt(recordAt(value, 'completion_tokens_details'), 'reasoning_tokens') ?? 0;
  return { promptTokens, completionTokens, reasoningTokens };
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

/** Counts usage locally when an upstream reports none (some compatible servers omit it). */
export function countUsage(messages: readonly ChatMessage[], producedText: string): TokenUsage {
  return { promptTokens: countMessageTokens(messages), completionTokens: countTokens(producedText), reasoningTokens: 0 };
}

function producedText(choices: readonly ChatChoice[]): string {
  return choices
    .map((c) => `${c.message.reasoning ?? ''}${c.message.content ?? ''}${(c.message.tool_calls ?? []).map((t) => t.function.arguments).join('')}`)
    .join('');
}

/** Maps a non-streamed OpenAI chat completion to a ChatResult. */
export function fromOpenAiResponse(json: unknown, messages: readonly ChatMessage[]): ChatResult {
  const rawChoices = arrayAt(json, 'choices');
  if (!isRecord(json) || rawChoices === undefined) {
    throw new GatewayError('upstream_error', 'The upstream provider answered without choices');
  }
  const choices = rawChoices.map(readChoice);
  const usage = readOpenAiUsage(json.usage) ?? countUsage(messages, producedText(choices));
  const extra: JsonRecord = {};
  for (const field of PASSED_ON_FIELDS) if (json[field] !== undefined && json[field] !== null) extra[field] = json[field];
  return Object.keys(extra).length === 0 ? { choices, usage } : { choices, usage, extra };
}
