import { describe, expect, it } from 'vitest';
import { MessageAssembler } from '../../../src/cache/messages-assembler.js';
import { messageEvents } from '../../../src/cache/messages-events.js';
import { anthropicFinalMessage } from './sdk-streams.js';

const usage = { input_tokens: 20, cache_creation_input_tokens: 0, cache_read_input_tokens: 5, output_tokens: 42, cost: 0.000123, cost_details: [{ component: 'cache_hit', units: 1, unit_price_usd: '0.000123', amount_usd: '0.000123' }] };

/** A message with every kind of block the stream form carries. */
const rich = {
  id: 'msg_01',
  type: 'message',
  role: 'assistant',
  model: 'test/claude',
  content: [
    { type: 'thinking', thinking: 'Let me think.', signature: 'sig_abc' },
    { type: 'redacted_thinking', data: 'opaque' },
    { type: 'text', text: 'The sky is blue.', citations: [{ type: 'char_location', cited_text: 'blue', document_index: 0, document_title: 'Sky', start_char_index: 11, end_char_index: 15 }] },
    { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'sky colour' } },
    { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_1', content: [] },
    { type: 'text', text: 'Checking.' },
    { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { location: 'Paris', days: [1, 2], nested: { unit: 'C' } } },
  ],
  stop_reason: 'tool_use',
  stop_sequence: null,
  usage,
};

function assemble(events: readonly unknown[]): Record<string, unknown> | undefined {
  const assembler = new MessageAssembler();
  for (const event of events) assembler.add(event);
  return assembler.result();
}

describe('Messages answers as events and back', () => {
  it('puts a message back together from its own events exactly', () => {
    expect(assemble(messageEvents(rich))).toEqual(rich);
    const plain = { ...rich, content: [{ type: 'text', text: 'Hi.' }], stop_reason: 'end_turn' };
    expect(assemble(messageEvents(plain))).toEqual(plain);
    const empty = { ...rich, content: [], stop_reason: 'max_tokens', stop_sequence: null };
    expect(assemble(messageEvents(empty))).toEqual(empty);
  });

  it('streams in the order and shapes Anthropic sends', () => {
    const events = messageEvents(rich);
    expect(events.map((e) => e.type)).toEqual([
      'message_start',
      ...rich.content.flatMap((block) => {
        const deltas = { thinking: 2, redacted_thinking: 0, text: block.type === 'text' && 'citations' in block ? 2 : 1, server_tool_use: 1, web_search_tool_result: 0, tool_use: 1 }[block.type] ?? 0;
        return ['content_block_start', ...Array<string>(deltas).fill('content_block_delta'), 'content_block_stop'];
      }),
      'message_delta',
      'message_stop',
    ]);
    const start = events[0] as { message: Record<string, unknown> };
    expect(start.message).toMatchObject({ id: 'msg_01', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 20, cache_read_input_tokens: 5, output_tokens: 0 } });
    expect(start.message.usage).not.toHaveProperty('cost');
    expect(events.at(-2)).toEqual({ type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage });
    expect(events).toContainEqual({ type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } });
    expect(events).toContainEqual({ type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 'sig_abc' } });
    expect(events).toContainEqual({ type: 'content_block_delta', index: 6, delta: { type: 'input_json_delta', partial_json: JSON.stringify(rich.content[6]?.input) } });
  });

  it('is read by the Anthropic SDK as the same message', async () => {
    // The SDK keeps Anthropic's own counters; the cost rides along on message_delta.
    const { cost: _cost, cost_details: _lines, ...counts } = usage;
    expect(await anthropicFinalMessage(messageEvents(rich))).toEqual({ ...rich, usage: counts });
  });

  it('puts back an upstream stream split into many deltas, as the SDK does', async () => {
    const json = JSON.stringify({ location: 'Paris' });
    const events = [
      { type: 'message_start', message: { id: 'msg_x', type: 'message', role: 'assistant', model: 'm', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 9, output_tokens: 1 } } },
      { type: 'ping' },
      { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'Hm' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'm.' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 'sig' } },
      { type: 'content_block_stop', index: 0 },
      { type: 'content_block_start', index: 1, content_block: { type: 'text', text: '' } },
      { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'Hello ' } },
      { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'there.' } },
      { type: 'content_block_stop', index: 1 },
      { type: 'content_block_start', index: 2, content_block: { type: 'tool_use', id: 'toolu_9', name: 'w', input: {} } },
      { type: 'content_block_delta', index: 2, delta: { type: 'input_json_delta', partial_json: json.slice(0, 5) } },
      { type: 'content_block_delta', index: 2, delta: { type: 'input_json_delta', partial_json: json.slice(5) } },
      { type: 'content_block_stop', index: 2 },
      { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 30, cost: 0.5, cost_details: [] } },
      { type: 'message_stop' },
    ];
    const message = assemble(events);
    expect(message).toEqual({
      id: 'msg_x', type: 'message', role: 'assistant', model: 'm', stop_reason: 'tool_use', stop_sequence: null,
      content: [{ type: 'thinking', thinking: 'Hmm.', signature: 'sig' }, { type: 'text', text: 'Hello there.' }, { type: 'tool_use', id: 'toolu_9', name: 'w', input: { location: 'Paris' } }],
      usage: { input_tokens: 9, output_tokens: 30, cost: 0.5, cost_details: [] },
    });
    const { cost: _c, cost_details: _d, ...counts } = message?.usage as Record<string, unknown>;
    expect(await anthropicFinalMessage(events)).toEqual({ ...message, usage: counts });
    // The events themselves are left as they were sent.
    expect(events[0]).toMatchObject({ message: { content: [], stop_reason: null } });
  });

  it('keeps nothing of a stream that did not end normally or cannot be put back exactly', () => {
    const events = messageEvents(rich);
    const stop = events.length - 1;
    // Cut before message_stop, or before message_delta.
    expect(assemble(events.slice(0, stop))).toBeUndefined();
    expect(assemble([...events.slice(0, stop - 1), events[stop]])).toBeUndefined();
    // An error after the end (a charge that failed), or in the middle.
    expect(assemble([...events, { type: 'error', error: { type: 'api_error', message: 'x' } }])).toBeUndefined();
    expect(assemble([...events.slice(0, 3), { type: 'error', error: { type: 'overloaded_error', message: 'x' } }, ...events.slice(3)])).toBeUndefined();
    // A refusal, or no stop reason at all.
    expect(assemble(messageEvents({ ...rich, stop_reason: 'refusal' }))).toBeUndefined();
    expect(assemble(messageEvents({ ...rich, stop_reason: null }))).toBeUndefined();
    // A delta it does not know, tool input that is not JSON, a block never stopped.
    const unknown = events.map((e) => (e.type === 'content_block_delta' && e.index === 5 ? { ...e, delta: { type: 'future_delta', x: 1 } } : e));
    expect(assemble(unknown)).toBeUndefined();
    const broken = events.map((e) => (e.type === 'content_block_delta' && e.index === 6 ? { ...e, delta: { type: 'input_json_delta', partial_json: '{"location": "Par' } } : e));
    expect(assemble(broken)).toBeUndefined();
    expect(assemble(events.filter((e) => !(e.type === 'content_block_stop' && e.index === 2)))).toBeUndefined();
    // Two messages in one stream.
    expect(assemble([events[0], ...events])).toBeUndefined();
  });
});
