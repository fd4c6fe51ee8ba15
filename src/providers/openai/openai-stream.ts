import { GatewayError } from '../../platform/errors/index.js';
import type { ChatDelta, ChatMessage, ChatStreamEvent, TokenUsage } from '../chat/chat-types.js';
import { sanitizeUpstreamMessage } from '../http/upstream-errors.js';
import { arrayAt, isRecord, numberAt, recordAt, stringAt, type JsonRecord } from '../http/narrow.js';
import { type SseEvent, SKIPPED_EVENT, TolerantSseJson } from '../sse/sse-decoder.js';
import { readOpenAiUsage, readReasoningText } from './openai-response.js';

type ToolCallDelta = NonNullable<ChatDelta['delta']['tool_calls']>[number];

function readToolCallDelta(value: JsonRecord, position: number): ToolCallDelta {
  const out: ToolCallDelta = { index: numberAt(value, 'index') ?? position };
  const id = stringAt(value, 'id');
  if (id !== undefined) out.id = id;
  if (stringAt(value, 'type') === 'function') out.type = 'function';
  const fn = recordAt(value, 'function');
  if (fn !== undefined) {
    const name = stringAt(fn, 'name');
    const args = stringAt(fn, 'arguments');
    out.function = {};
    if (name !== undefined) out.function.name = name;
    if (args !== undefined) out.function.arguments = args;
  }
  return out;
}

function readDelta(value: unknown, position: number): ChatDelta | undefined {
  if (!isRecord(value)) return undefined;
  const raw = recordAt(value, 'delta') ?? {};
  const delta: ChatDelta['delta'] = {};
  if (raw.role === 'assistant') delta.role = 'assistant';
  if (typeof raw.content === 'string') delta.content = raw.content;
  const reasoning = readReasoningText(raw);
  if (reasoning !== undefined) delta.reasoning = reasoning;
  const calls = arrayAt(raw, 'tool_calls');
  if (calls !== undefined) delta.tool_calls = calls.filter(isRecord).map(readToolCallDelta);
  if (typeof raw.refusal === 'string') delta.refusal = raw.refusal;
  const annotations = arrayAt(raw, 'annotations');
  if (annotations !== undefined) delta.annotations = annotations;
  const out: ChatDelta = { index: numberAt(value, 'index') ?? position, delta, finish_reason: stringAt(value, 'finish_reason') ?? null };
  if (value.logprobs !== undefined && value.logprobs !== null) out.logprobs = value.logprobs;
  return out;
}

function deltaText(choice: ChatDelta): string {
  const args = (choice.delta.tool_calls ?? []).map((t) => `${t.function?.name ?? ''}${t.function?.arguments ?? ''}`);
  return `${choice.delta.reasoning ?? ''}${choice.delta.content ?? ''}${args.join('')}`;
}

function inStreamError(chunk: JsonRecord): GatewayError {
  const message = stringAt(recordAt(chunk, 'error'), 'message') ?? stringAt(chunk, 'error') ?? 'unknown error';
  return new GatewayError('upstream_error', `The upstream provider failed mid-stream: ${sanitizeUpstreamMessage(message)}`);
}

function readChunk(chunk: unknown): { usage: TokenUsage | undefined; choices: ChatDelta[] } {
  if (!isRecord(chunk)) throw new GatewayError('upstream_error', 'The upstream provider sent a malformed chunk');
  if (chunk.error !== undefined && chunk.error !== null) throw inStreamError(chunk);
  const choices = (arrayAt(chunk, 'choices') ?? []).flatMap((c, i) => readDelta(c, i) ?? []);
  return { usage: readOpenAiUsage(chunk.usage), choices };
}

/**
 * Maps OpenAI chat-completion chunks to stream events: one delta item per chunk with
 * choices, then the upstream's usage (none when it sent none: the gateway then counts). An `error` chunk, or a stream that ends before `[DONE]` without a
 * finish reason, raises `upstream_error`. An event whose data is not JSON is skipped (a
 * `skipped` item), up to a few per stream.
 */
export async function* mapOpenAiStream(events: AsyncIterable<SseEvent>): AsyncGenerator<ChatStreamEvent> {
  let usage: TokenUsage | undefined;
  let produced = '';
  let finished = false;
  let done = false;
  const payloads = new TolerantSseJson();
  try {
    for await (const event of events) {
      // Events after [DONE] are read and ignored so the connection ends cleanly and stays pooled.
      if (done) continue;
      if (event.data.trim() === '[DONE]') {
        done = true;
        if (usage !== undefined) yield { kind: 'usage', usage };
        continue;
      }
      const parsed = payloads.parse(event.data);
      if (parsed === SKIPPED_EVENT) {
        yield { kind: 'skipped', reason: 'an event did not carry valid JSON' };
        continue;
      }
      const chunk = readChunk(parsed);
      usage = chunk.usage ?? usage;
      if (chunk.choices.length === 0) continue;
      for (const choice of chunk.choices) {
        produced += deltaText(choice);
        if (choice.finish_reason !== null) finished = true;
      }
      yield { kind: 'delta', choices: chunk.choices };
    }
  } catch (err) {
    // Once usage went out the answer is complete; a failure while draining changes nothing.
    if (done) return;
    throw err;
  }
  if (done) return;
  if (!finished) throw new GatewayError('upstream_error', 'The upstream stream ended before completing');
  if (usage !== undefined) yield { kind: 'usage', usage };
}
