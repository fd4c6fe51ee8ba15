import { isRecord, type JsonRecord } from '../providers/index.js';

/** A block as content_block_start opens it: empty where its deltas will fill it in. */
function openedBlock(block: JsonRecord): JsonRecord {
  if (block.type === 'text') return { ...block, text: '', ...(Array.isArray(block.citations) ? { citations: [] } : {}) };
  if (block.type === 'thinking') return { ...block, thinking: '', signature: '' };
  if (block.type === 'tool_use' || block.type === 'server_tool_use') return { ...block, input: {} };
  // Other blocks (redacted thinking, server tool results) arrive whole, as Anthropic sends them.
  return block;
}

/** The deltas that fill an opened block in: one per kind of content, the whole of it at once. */
function blockDeltas(block: JsonRecord): JsonRecord[] {
  const deltas: JsonRecord[] = [];
  if (block.type === 'text') {
    for (const citation of Array.isArray(block.citations) ? block.citations : []) deltas.push({ type: 'citations_delta', citation });
    if (typeof block.text === 'string' && block.text !== '') deltas.push({ type: 'text_delta', text: block.text });
  } else if (block.type === 'thinking') {
    if (typeof block.thinking === 'string' && block.thinking !== '') deltas.push({ type: 'thinking_delta', thinking: block.thinking });
    if (typeof block.signature === 'string' && block.signature !== '') deltas.push({ type: 'signature_delta', signature: block.signature });
  } else if (block.type === 'tool_use' || block.type === 'server_tool_use') {
    deltas.push({ type: 'input_json_delta', partial_json: JSON.stringify(block.input ?? {}) });
  }
  return deltas;
}

/** What message_delta sets (message_start carries each of them null): how and why the message stopped. */
function stopFields(message: JsonRecord): JsonRecord {
  const stops: JsonRecord = { stop_reason: message.stop_reason ?? null, stop_sequence: message.stop_sequence ?? null };
  if ('stop_details' in message) stops.stop_details = message.stop_details;
  return stops;
}

/**
 * A whole Messages answer as the events Anthropic streams it in: message_start (no content
 * yet, no stop reason, the input counts), then per content block its content_block_start, one
 * content_block_delta per kind of content it carries and its content_block_stop, then
 * message_delta (the stop reason and the whole usage, with whatever cost it reports) and
 * message_stop. MessageAssembler reads these back into the same message.
 */
export function messageEvents(message: JsonRecord): JsonRecord[] {
  const usage = isRecord(message.usage) ? message.usage : {};
  const { cost: _cost, cost_details: _lines, ...counts } = usage;
  const stops = stopFields(message);
  const unstopped = Object.fromEntries(Object.keys(stops).map((field) => [field, null]));
  const starting = { ...message, content: [], ...unstopped, usage: { ...counts, output_tokens: 0 } };
  const events: JsonRecord[] = [{ type: 'message_start', message: starting }];
  const content = Array.isArray(message.content) ? message.content.filter(isRecord) : [];
  content.forEach((block, index) => {
    events.push({ type: 'content_block_start', index, content_block: openedBlock(block) });
    for (const delta of blockDeltas(block)) events.push({ type: 'content_block_delta', index, delta });
    events.push({ type: 'content_block_stop', index });
  });
  events.push({ type: 'message_delta', delta: stops, usage }, { type: 'message_stop' });
  return events;
}
