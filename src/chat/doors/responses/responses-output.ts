import type { UsageWire } from '../../wire/chat-wire.js';
import type { ErrorBody } from '../../../platform/errors/index.js';
import { isRecord } from '../../../providers/index.js';
import type { ResponsesRequest } from './responses-schema.js';
import type { CallName } from './responses-tools.js';

/** Ids shared by every object of one response, derived from the request id so logs correlate. */
export interface ResponseIds {
  id: string;
  message: string;
  reasoning: string;
  call(index: number): string;
}

/** Ids of one response (`resp_…`, `msg_…`, `rs_…`, `fc_…`). */
export function responseIds(requestId: string): ResponseIds {
  const tail = requestId.replace(/^req_/, '');
  return { id: `resp_${tail}`, message: `msg_${tail}`, reasoning: `rs_${tail}`, call: (index) => `fc_${tail}_${index}` };
}

/** Responses usage: token counts plus the exact charged `cost` in USD. */
export interface ResponsesUsage {
  input_tokens: number;
  input_tokens_details: { cached_tokens: number; cache_write_tokens: number };
  output_tokens: number;
  output_tokens_details: { reasoning_tokens: number };
  total_tokens: number;
  /** Server-side searches, when there were any (as in the chat usage). */
  server_tool_use?: UsageWire['server_tool_use'];
  cost: number;
  cost_details: UsageWire['cost_details'];
}

/** Maps the chat usage (same tokens, same cost) to the Responses names. */
export function responsesUsage(usage: UsageWire): ResponsesUsage {
  const out: ResponsesUsage = {
    input_tokens: usage.prompt_tokens,
    input_tokens_details: { ...usage.prompt_tokens_details },
    output_tokens: usage.completion_tokens,
    output_tokens_details: { reasoning_tokens: usage.completion_tokens_details.reasoning_tokens },
    total_tokens: usage.total_tokens,
    cost: usage.cost,
    cost_details: usage.cost_details,
  };
  if (usage.server_tool_use !== undefined) out.server_tool_use = usage.server_tool_use;
  return out;
}

/** What every response object of one request shares. */
export interface ResponseShell {
  ids: ResponseIds;
  createdAt: number;
  model: string;
  request: ResponsesRequest;
  /** A chat function name as the client named the tool (namespaced tools were joined for chat). */
  callName(chatName: string): CallName;
}

/** The lifecycle state a response object reports. */
export interface ResponseState {
  status: 'in_progress' | 'completed' | 'incomplete' | 'failed';
  output: Record<string, unknown>[];
  usage: ResponsesUsage | null;
  error?: ErrorBody['error'] | null;
  incomplete?: string;
}

/**
 * The Responses API's error codes are a closed list; the service's own code stays readable in
 * the message.
 */
function responseError(error: ErrorBody['error']): { code: string; message: string } {
  const code = error.type === 'rate_limit_error' ? 'rate_limit_exceeded' : 'server_error';
  return { code, message: `${error.message} (${error.code})` };
}

/** A full `response` object (the request's settings echoed, as the API does). */
export function responseObject(shell: ResponseShell, state: ResponseState): Record<string, unknown> {
  const r = shell.request;
  const body: Record<string, unknown> = {
    id: shell.ids.id,
    object: 'response',
    created_at: shell.createdAt,
    status: state.status,
    error: state.error ? responseError(state.error) : null,
    incomplete_details: state.incomplete ? { reason: state.incomplete } : null,
    instructions: r.instructions ?? null,
    max_output_tokens: r.max_output_tokens ?? null,
    model: shell.model,
    output: state.output,
    parallel_tool_calls: r.parallel_tool_calls ?? true,
    previous_response_id: null,
    reasoning: { effort: r.reasoning?.effort ?? null, summary: r.reasoning?.summary ?? null },
    store: false,
    temperature: r.temperature ?? 1,
    text: { format: r.text?.format ?? { type: 'text' } },
    tool_choice: r.tool_choice ?? 'auto',
    tools: r.tools ?? [],
    top_p: r.top_p ?? 1,
    truncation: 'disabled',
    metadata: {},
  };
  // Usage is absent (not null) until the response is settled, as the spec has it.
  if (state.usage !== null) body.usage = state.usage;
  return body;
}

/** A reasoning output item whose text is reported as a summary. */
export function reasoningItem(ids: ResponseIds, text: string): Record<string, unknown> {
  return { id: ids.reasoning, type: 'reasoning', summary: text === '' ? [] : [{ type: 'summary_text', text }] };
}

/** An assistant message output item with one output_text part. */
export function messageItem(ids: ResponseIds, text: string | null, status: string): Record<string, unknown> {
  const content = text === null ? [] : [{ type: 'output_text', text, annotations: [], logprobs: [] }];
  return { id: ids.message, type: 'message', role: 'assistant', status, content };
}

/** A function call output item, with its namespace when the tool had one. */
export function functionCallItem(id: string, callId: string, call: CallName, args: string, status: string): Record<string, unknown> {
  return { id, type: 'function_call', call_id: callId, name: call.name, ...(call.namespace !== undefined ? { namespace: call.namespace } : {}), arguments: args, status };
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** `incomplete_details.reason` for a chat finish reason, when the answer was cut. */
export function incompleteReason(finish: string | undefined): string | undefined {
  if (finish === 'length') return 'max_output_tokens';
  if (finish === 'content_filter') return 'content_filter';
  return undefined;
}

/** Maps a non-streamed chat completion (as the chat service answers it) to a response object. */
export function completionToResponse(shell: ResponseShell, completion: Record<string, unknown>): Record<string, unknown> {
  const choice = Array.isArray(completion.choices) && isRecord(completion.choices[0]) ? completion.choices[0] : {};
  const message = isRecord(choice.message) ? choice.message : {};
  const output: Record<string, unknown>[] = [];
  const reasoning = str(message.reasoning);
  if (reasoning) output.push(reasoningItem(shell.ids, reasoning));
  const content = str(message.content);
  if (content !== undefined) output.push(messageItem(shell.ids, content, 'completed'));
  const calls = Array.isArray(message.tool_calls) ? message.tool_calls.filter(isRecord) : [];
  calls.forEach((call, i) => {
    const fn = isRecord(call.function) ? call.function : {};
    output.push(functionCallItem(shell.ids.call(i), str(call.id) ?? shell.ids.call(i), shell.callName(str(fn.name) ?? ''), str(fn.arguments) ?? '', 'completed'));
  });
  const incomplete = incompleteReason(str(choice.finish_reason));
  const usage = isRecord(completion.usage) ? responsesUsage(completion.usage as unknown as UsageWire) : null;
  return responseObject(shell, { status: incomplete ? 'incomplete' : 'completed', output, usage, incomplete });
}
