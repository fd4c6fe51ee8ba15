import { isRecord, type JsonRecord } from '../providers/index.js';

/** Where an item's events point: the item's id and its place in the output. */
interface At {
  readonly item_id: unknown;
  readonly output_index: number;
}

function records(value: unknown): JsonRecord[] {
  return Array.isArray(value) ? value.filter(isRecord) : [];
}

/** An item as `response.output_item.added` announces it: in progress, its streamed parts still empty. */
function openedItem(item: JsonRecord): JsonRecord {
  const status = 'status' in item ? { status: 'in_progress' } : {};
  if (item.type === 'message') return { ...item, ...status, content: [] };
  if (item.type === 'function_call') return { ...item, ...status, arguments: '' };
  if (item.type === 'reasoning') return { ...item, ...status, summary: [], ...(Array.isArray(item.content) ? { content: [] } : {}) };
  // Other items (hosted tool calls) are announced whole.
  return item;
}

/** One message content part: added empty, its text (or refusal) in one delta, its annotations, done. */
function messagePartEvents(at: At, content_index: number, part: JsonRecord): JsonRecord[] {
  const on = { ...at, content_index };
  if (part.type === 'refusal') {
    const refusal = typeof part.refusal === 'string' ? part.refusal : '';
    return [
      { type: 'response.content_part.added', ...on, part: { ...part, refusal: '' } },
      { type: 'response.refusal.delta', ...on, delta: refusal },
      { type: 'response.refusal.done', ...on, refusal },
      { type: 'response.content_part.done', ...on, part },
    ];
  }
  if (part.type !== 'output_text') return [{ type: 'response.content_part.added', ...on, part }, { type: 'response.content_part.done', ...on, part }];
  const text = typeof part.text === 'string' ? part.text : '';
  const logprobs = Array.isArray(part.logprobs) ? part.logprobs : [];
  const annotations = records(part.annotations).map((annotation, annotation_index) => ({ type: 'response.output_text.annotation.added', ...on, annotation_index, annotation }));
  return [
    { type: 'response.content_part.added', ...on, part: { ...part, text: '', annotations: [], ...('logprobs' in part ? { logprobs: [] } : {}) } },
    { type: 'response.output_text.delta', ...on, delta: text, logprobs },
    ...annotations,
    { type: 'response.output_text.done', ...on, text, logprobs },
    { type: 'response.content_part.done', ...on, part },
  ];
}

/** A reasoning item's summary parts and reasoning text, each added empty, filled in one delta, done. */
function reasoningEvents(at: At, item: JsonRecord): JsonRecord[] {
  const events: JsonRecord[] = [];
  records(item.summary).forEach((part, summary_index) => {
    const on = { ...at, summary_index };
    const text = typeof part.text === 'string' ? part.text : '';
    events.push({ type: 'response.reasoning_summary_part.added', ...on, part: { ...part, text: '' } });
    events.push({ type: 'response.reasoning_summary_text.delta', ...on, delta: text }, { type: 'response.reasoning_summary_text.done', ...on, text });
    events.push({ type: 'response.reasoning_summary_part.done', ...on, part });
  });
  records(item.content).forEach((part, content_index) => {
    const on = { ...at, content_index };
    const text = typeof part.text === 'string' ? part.text : '';
    events.push({ type: 'response.content_part.added', ...on, part: { ...part, text: '' } });
    events.push({ type: 'response.reasoning_text.delta', ...on, delta: text }, { type: 'response.reasoning_text.done', ...on, text });
    events.push({ type: 'response.content_part.done', ...on, part });
  });
  return events;
}

/** The events between an item's `added` and its `done`. */
function itemEvents(at: At, item: JsonRecord): JsonRecord[] {
  if (item.type === 'message') return records(item.content).flatMap((part, index) => messagePartEvents(at, index, part));
  if (item.type === 'reasoning') return reasoningEvents(at, item);
  if (item.type !== 'function_call') return [];
  const args = typeof item.arguments === 'string' ? item.arguments : '';
  return [
    { type: 'response.function_call_arguments.delta', ...at, delta: args },
    { type: 'response.function_call_arguments.done', ...at, ...(typeof item.name === 'string' ? { name: item.name } : {}), arguments: args },
  ];
}

/**
 * A whole Responses answer as the events the API streams it in: response.created and
 * response.in_progress (no output, no usage yet), then per output item its
 * output_item.added, its parts and deltas (one delta with the whole text or arguments) and
 * output_item.done, then response.completed with the whole response, its usage and whatever
 * cost that reports. Every event is numbered (`sequence_number`) from 0, as the API numbers them.
 */
export function responseEvents(response: JsonRecord): JsonRecord[] {
  const started = { ...response, status: 'in_progress', output: [], usage: null };
  const events: JsonRecord[] = [{ type: 'response.created', response: started }, { type: 'response.in_progress', response: started }];
  records(response.output).forEach((item, output_index) => {
    const at: At = { item_id: item.id, output_index };
    events.push({ type: 'response.output_item.added', output_index, item: openedItem(item) }, ...itemEvents(at, item), { type: 'response.output_item.done', output_index, item });
  });
  events.push({ type: 'response.completed', response });
  return events.map((event, sequence_number) => ({ ...event, sequence_number }));
}
