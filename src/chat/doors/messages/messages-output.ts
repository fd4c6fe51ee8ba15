import type { UsageWire } from '../../wire/chat-wire.js';
import { isRecord } from '../../../providers/index.js';

/** Anthropic usage plus the exact charged `cost` in USD and its lines. */
export interface MessagesUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
  server_tool_use?: { web_search_requests: number };
  cost: number;
  cost_details: UsageWire['cost_details'];
}

/**
 * Maps the chat usage (same tokens, same cost) to Anthropic's names: Anthropic's
 * `input_tokens` leave out cache reads and writes, which it reports apart.
 */
export function messagesUsage(usage: UsageWire): MessagesUsage {
  const { cached_tokens: read, cache_write_tokens: written } = usage.prompt_tokens_details;
  const out: MessagesUsage = {
    input_tokens: usage.prompt_tokens - read - written,
    output_tokens: usage.completion_tokens,
    cache_creation_input_tokens: written,
    cache_read_input_tokens: read,
    cost: usage.cost,
    cost_details: usage.cost_details,
  };
  if (usage.server_tool_use !== undefined) out.server_tool_use = usage.server_tool_use;
  return out;
}

/** Anthropic's `stop_reason` for a chat finish reason. */
export function stopReason(finish: string | undefined): string {
  if (finish === 'length') return 'max_tokens';
  if (finish === 'tool_calls' || finish === 'function_call') return 'tool_use';
  return 'end_turn';
}

/** `msg_…` id derived from the request id, so responses and logs correlate. */
export function messageId(requestId: string): string {
  return `msg_${requestId.replace(/^req_/, '')}`;
}

/** Parses tool arguments into the `input` object Anthropic clients expect. */
export function toolInput(args: string): unknown {
  try {
    return args === '' ? {} : JSON.parse(args);
  } catch {
    // A model that broke its JSON still gets its text relayed, not dropped.
    return { _raw: args };
  }
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function contentBlocks(message: Record<string, unknown>): Record<string, unknown>[] {
  const blocks: Record<string, unknown>[] = [];
  const reasoning = str(message.reasoning);
  if (reasoning) blocks.push({ type: 'thinking', thinking: reasoning, signature: '' });
  const text = str(message.content);
  if (text) blocks.push({ type: 'text', text });
  const calls = Array.isArray(message.tool_calls) ? message.tool_calls.filter(isRecord) : [];
  for (const call of calls) {
    const fn = isRecord(call.function) ? call.function : {};
    blocks.push({ type: 'tool_use', id: str(call.id) ?? '', name: str(fn.name) ?? '', input: toolInput(str(fn.arguments) ?? '') });
  }
  return blocks;
}

/** Maps a non-streamed chat completion (as the chat service answers it) to an Anthropic message. */
export function completionToMessage(id: string, model: string, completion: Record<string, unknown>): Record<string, unknown> {
  const choice = Array.isArray(completion.choices) && isRecord(completion.choices[0]) ? completion.choices[0] : {};
  const message = isRecord(choice.message) ? choice.message : {};
  const usage = isRecord(completion.usage) ? messagesUsage(completion.usage as unknown as UsageWire) : null;
  return {
    id,
    type: 'message',
    role: 'assistant',
    model,
    content: contentBlocks(message),
    stop_reason: stopReason(str(choice.finish_reason)),
    stop_sequence: null,
    usage,
  };
}

/** Headers of a Messages stream: the request id under both names Anthropic's SDK reads. */
export function messagesStreamHeaders(requestId: string): Record<string, string> {
  return { 'x-request-id': requestId, 'request-id': requestId };
}
