import { type Nano, toUsdNumber } from '../billing/index.js';
import { type ChunkSink, completionId, type TranslatedPlan } from '../chat/index.js';
import type { ChatEntry } from './cache-entry.js';
import { hitLine } from './hit-price.js';
import { isRecord } from '../providers/index.js';


/** The stored completion as a hit shows it: this request's own ids and time, the hit's cost and line, the original counts. */
export function hitCompletion(entry: ChatEntry, requestId: string, created: number, cost: Nano): Record<string, unknown> {
  const usage = isRecord(entry.completion.usage) ? entry.completion.usage : {};
  return { ...entry.completion, id: completionId(requestId), created, usage: { ...usage, cost: toUsdNumber(cost), cost_details: [hitLine(cost)] } };
}

/** One stored choice's message as a single delta (reasoning, text, refusal, tool calls). */
function messageDelta(message: Record<string, unknown>): Record<string, unknown> {
  const delta: Record<string, unknown> = { role: 'assistant' };
  if (typeof message.reasoning === 'string') {
    delta.reasoning = message.reasoning;
    delta.reasoning_content = message.reasoning;
  }
  if (typeof message.content === 'string' && message.content !== '') delta.content = message.content;
  if (typeof message.refusal === 'string') delta.refusal = message.refusal;
  if (Array.isArray(message.annotations)) delta.annotations = message.annotations;
  if (Array.isArray(message.tool_calls)) {
    delta.tool_calls = message.tool_calls.filter(isRecord).map((call, index) => ({ index, id: call.id, type: call.type ?? 'function', function: call.function }));
  }
  return delta;
}

/**
 * A stored completion as the chunks of a stream: each choice's message in one delta (with
 * the choice's whole log probabilities, if it has any), then the finish reasons, then the usage chunk (`choices: []`) last, as every stream of the
 * Chat Completions door ends.
 */
export function completionChunks(completion: Record<string, unknown>): Array<Record<string, unknown>> {
  const { id, created, model, provider } = completion;
  const head = { id, object: 'chat.completion.chunk', created, model, ...(provider !== undefined ? { provider } : {}) };
  const choices = Array.isArray(completion.choices) ? completion.choices.filter(isRecord) : [];
  const chunks: Array<Record<string, unknown>> = choices.map((choice) => {
    const logprobs = isRecord(choice.logprobs) ? { logprobs: choice.logprobs } : {};
    return { ...head, choices: [{ index: choice.index ?? 0, delta: messageDelta(isRecord(choice.message) ? choice.message : {}), ...logprobs, finish_reason: null }] };
  });
  chunks.push({ ...head, choices: choices.map((choice) => ({ index: choice.index ?? 0, delta: {}, finish_reason: choice.finish_reason ?? 'stop' })) });
  chunks.push({ ...head, choices: [], usage: completion.usage });
  return chunks;
}

/** Writes a stored completion as a stream through the door's sink (its own SSE format). */
export async function replayStream(sink: ChunkSink, completion: Record<string, unknown>): Promise<void> {
  sink.open();
  for (const chunk of completionChunks(completion)) {
    if (sink.closed) return;
    await sink.send(chunk);
  }
  await sink.finish();
}

/** The stored answer in the door's own form: its non-streamed body, or its stream. */
export async function replayAnswer(plan: TranslatedPlan, completion: Record<string, unknown>, stream: ReturnType<TranslatedPlan['sink']> | undefined): Promise<unknown> {
  if (stream === undefined) return plan.answer(completion);
  await replayStream(stream, completion);
  return undefined;
}
