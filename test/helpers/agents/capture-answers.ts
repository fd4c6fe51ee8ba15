import type { ServerResponse } from 'node:http';

/** The text every captured turn is answered with. */
export const CAPTURE_REPLY = 'Hello.';

const USAGE = { input: 10, output: 2 };

function field(body: unknown, name: string): unknown {
  return body !== null && typeof body === 'object' ? (body as Record<string, unknown>)[name] : undefined;
}

function modelOf(body: unknown): string {
  const model = field(body, 'model');
  return typeof model === 'string' ? model : 'unknown';
}

function json(res: ServerResponse, value: unknown): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify(value));
}

/** Writes `events` as one SSE stream; `named` adds `event:` lines (Anthropic, Responses). */
function sse(res: ServerResponse, events: Record<string, unknown>[], named: boolean, done = false): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const event of events) {
    res.write(`${named ? `event: ${String(event.type)}\n` : ''}data: ${JSON.stringify(event)}\n\n`);
  }
  if (done) res.write('data: [DONE]\n\n');
  res.end();
}

/** A one-text-block Anthropic Messages answer, JSON or SSE as the request asks. */
export function answerAnthropic(body: unknown, res: ServerResponse): void {
  const message = {
    id: 'msg_capture_0001', type: 'message', role: 'assistant', model: modelOf(body),
    content: [] as unknown[], stop_reason: null as string | null, stop_sequence: null,
    usage: { input_tokens: USAGE.input, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
  };
  if (field(body, 'stream') !== true) {
    json(res, { ...message, content: [{ type: 'text', text: CAPTURE_REPLY }], stop_reason: 'end_turn', usage: { ...message.usage, output_tokens: USAGE.output } });
    return;
  }
  sse(res, [
    { type: 'message_start', message },
    { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
    { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: CAPTURE_REPLY } },
    { type: 'content_block_stop', index: 0 },
    { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: USAGE.output } },
    { type: 'message_stop' },
  ], true);
}

function responseObject(body: unknown, status: 'in_progress' | 'completed'): Record<string, unknown> {
  const message = {
    type: 'message', id: 'msg_capture_0001', status: 'completed', role: 'assistant',
    content: [{ type: 'output_text', text: CAPTURE_REPLY, annotations: [], logprobs: [] }],
  };
  return {
    id: 'resp_capture_0001', object: 'response', created_at: Math.floor(Date.now() / 1000), status, error: null,
    incomplete_details: null, model: modelOf(body), output: status === 'completed' ? [message] : [],
    parallel_tool_calls: true, tool_choice: 'auto', tools: [], store: false,
    usage: status === 'completed'
      ? { input_tokens: USAGE.input, input_tokens_details: { cached_tokens: 0 }, output_tokens: USAGE.output, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: USAGE.input + USAGE.output }
      : null,
  };
}

/** A one-message OpenAI Responses answer, JSON or SSE as the request asks. */
export function answerResponses(body: unknown, res: ServerResponse): void {
  if (field(body, 'stream') !== true) {
    json(res, responseObject(body, 'completed'));
    return;
  }
  const done = responseObject(body, 'completed');
  const item = (done.output as Record<string, unknown>[])[0] ?? {};
  const part = { type: 'output_text', text: CAPTURE_REPLY, annotations: [], logprobs: [] };
  const at = { item_id: 'msg_capture_0001', output_index: 0, content_index: 0 };
  const events: Record<string, unknown>[] = [
    { type: 'response.created', response: responseObject(body, 'in_progress') },
    { type: 'response.in_progress', response: responseObject(body, 'in_progress') },
    { type: 'response.output_item.added', output_index: 0, item: { ...item, status: 'in_progress', content: [] } },
    { type: 'response.content_part.added', ...at, part: { ...part, text: '' } },
    { type: 'response.output_text.delta', ...at, delta: CAPTURE_REPLY, logprobs: [] },
    { type: 'response.output_text.done', ...at, text: CAPTURE_REPLY, logprobs: [] },
    { type: 'response.content_part.done', ...at, part },
    { type: 'response.output_item.done', output_index: 0, item },
    { type: 'response.completed', response: done },
  ];
  sse(res, events.map((e, i) => ({ ...e, sequence_number: i })), true);
}

/** A one-choice Chat Completions answer, JSON or SSE (with a usage chunk) as the request asks. */
export function answerChatCompletions(body: unknown, res: ServerResponse): void {
  const base = { id: 'chatcmpl-capture-0001', created: Math.floor(Date.now() / 1000), model: modelOf(body) };
  const usage = { prompt_tokens: USAGE.input, completion_tokens: USAGE.output, total_tokens: USAGE.input + USAGE.output };
  if (field(body, 'stream') !== true) {
    json(res, { ...base, object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: CAPTURE_REPLY }, finish_reason: 'stop' }], usage });
    return;
  }
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) => ({ ...base, object: 'chat.completion.chunk', choices, ...extra });
  sse(res, [
    chunk([{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }]),
    chunk([{ index: 0, delta: { content: CAPTURE_REPLY }, finish_reason: null }]),
    chunk([{ index: 0, delta: {}, finish_reason: 'stop' }]),
    chunk([], { usage }),
  ], false, true);
}
