import { GatewayError } from '../../platform/errors/index.js';
import type { ChatRequestBody, ChatTool, ReasoningOptions } from '../chat/chat-types.js';
import { readReasoning } from '../chat/reasoning-options.js';
import { isRecord, recordAt, stringAt, type JsonRecord } from '../http/narrow.js';
import { toAnthropicConversation } from './anthropic-messages.js';

/** Anthropic requires `max_tokens`; used when the client sets no limit. */
export const DEFAULT_MAX_TOKENS = 4096;

/** Smallest thinking budget Anthropic accepts. */
const MIN_THINKING_BUDGET = 1024;

/** Thinking budget per OpenRouter-style effort level. */
const BUDGET_BY_EFFORT: Readonly<Record<NonNullable<ReasoningOptions['effort']>, number>> = {
  minimal: 1024,
  low: 1024,
  medium: 4096,
  high: 16384,
};

/** OpenAI `tool_choice` strings → Anthropic `tool_choice.type`. */
const TOOL_CHOICE_TYPES: Readonly<Record<string, string>> = { auto: 'auto', none: 'none', required: 'any' };

function toolChoice(choice: unknown, parallel: unknown): JsonRecord | undefined {
  let out: JsonRecord | undefined;
  if (typeof choice === 'string') {
    const type = TOOL_CHOICE_TYPES[choice];
    if (type === undefined) throw new GatewayError('invalid_request', `Unknown tool_choice "${choice}"`, { param: 'tool_choice' });
    out = { type };
  } else if (isRecord(choice)) {
    const name = stringAt(recordAt(choice, 'function'), 'name');
    if (name === undefined) throw new GatewayError('invalid_request', 'tool_choice.function.name is required', { param: 'tool_choice' });
    out = { type: 'tool', name };
  }
  if (parallel === false && out?.type !== 'none') out = { ...(out ?? { type: 'auto' }), disable_parallel_tool_use: true };
  return out;
}

function tools(list: readonly ChatTool[]): JsonRecord[] {
  return list.map((tool) => {
    const out: JsonRecord = { name: tool.function.name, input_schema: tool.function.parameters ?? { type: 'object', properties: {} } };
    if (tool.function.description !== undefined) out.description = tool.function.description;
    return out;
  });
}

/**
 * Anthropic has no JSON mode here, so `response_format` becomes an instruction appended to the
 * system prompt (the schema is quoted for json_schema). Best effort: the model is asked, not forced.
 */
function jsonInstruction(format: ChatRequestBody['response_format']): string | undefined {
  if (format === undefined || format.type === 'text') return undefined;
  const base = 'Respond with a single valid JSON object and nothing else: no prose, no code fences.';
  if (format.type === 'json_object') return base;
  const schema = format.json_schema.schema ?? {};
  return `${base} The object must conform to this JSON Schema:\n${JSON.stringify(schema)}`;
}

function thinkingBudget(body: ChatRequestBody): number | undefined {
  const reasoning = readReasoning(body);
  if (!reasoning.enabled) return undefined;
  const budget = reasoning.maxTokens ?? BUDGET_BY_EFFORT[reasoning.effort ?? 'medium'];
  return Math.max(MIN_THINKING_BUDGET, Math.floor(budget));
}

function sampling(body: ChatRequestBody, thinking: boolean): JsonRecord {
  const out: JsonRecord = {};
  // Extended thinking rejects custom temperature/top_p/top_k, so they are dropped then.
  if (!thinking) {
    // OpenAI allows temperature up to 2; Anthropic up to 1.
    if (body.temperature !== undefined) out.temperature = Math.min(1, body.temperature);
    if (body.top_p !== undefined) out.top_p = body.top_p;
    if (typeof body.top_k === 'number') out.top_k = body.top_k;
  }
  if (body.stop !== undefined) out.stop_sequences = Array.isArray(body.stop) ? body.stop : [body.stop];
  if (typeof body.user === 'string') out.metadata = { user_id: body.user };
  return out;
}

function toolChoiceOf(body: ChatRequestBody): JsonRecord | undefined {
  const hasTools = body.tools !== undefined && body.tools.length > 0;
  return hasTools ? toolChoice(body.tool_choice, body.parallel_tool_calls) : undefined;
}

/** The thinking budget sent upstream; a forced tool call wins over reasoning (Anthropic allows thinking only with auto/none). */
function thinkingBudgetOf(body: ChatRequestBody, choice: JsonRecord | undefined): number | undefined {
  const forcesTool = choice?.type === 'any' || choice?.type === 'tool';
  return forcesTool ? undefined : thinkingBudget(body);
}

/** Anthropic's `max_tokens` for a body: the answer budget, raised above the thinking budget by it. */
export function anthropicMaxTokens(body: ChatRequestBody): number {
  const answerBudget = body.max_completion_tokens ?? body.max_tokens ?? DEFAULT_MAX_TOKENS;
  const budget = thinkingBudgetOf(body, toolChoiceOf(body));
  return budget === undefined || answerBudget > budget ? answerBudget : budget + answerBudget;
}

/**
 * Builds a Messages API request from an OpenAI chat request. `max_completion_tokens` (then
 * `max_tokens`, then 4096) sets the answer budget; with thinking on, `max_tokens` is raised
 * so it always exceeds the thinking budget by that answer budget.
 */
export function toAnthropicRequest(body: ChatRequestBody, upstreamModel: string, stream: boolean): JsonRecord {
  if (body.n !== undefined && body.n !== 1) {
    throw new GatewayError('invalid_request', 'This model supports only n = 1', { param: 'n' });
  }
  const conversation = toAnthropicConversation(body.messages);
  const choice = toolChoiceOf(body);
  const budget = thinkingBudgetOf(body, choice);
  const out: JsonRecord = {
    model: upstreamModel,
    messages: conversation.messages,
    max_tokens: anthropicMaxTokens(body),
    ...sampling(body, budget !== undefined),
  };
  const system = [conversation.system, jsonInstruction(body.response_format)].filter((s) => s !== undefined);
  if (system.length > 0) out.system = system.join('\n\n');
  if (budget !== undefined) out.thinking = { type: 'enabled', budget_tokens: budget };
  if (body.tools !== undefined && body.tools.length > 0) out.tools = tools(body.tools);
  if (choice !== undefined) out.tool_choice = choice;
  if (stream) out.stream = true;
  return out;
}
