import { describe, expect, it } from 'vitest';
import { ResponseAssembler } from '../../../src/cache/responses-assembler.js';
import { responseEvents } from '../../../src/cache/responses-events.js';
import { openAiFinalResponse, openAiSnapshot } from './sdk-streams.js';

const usage = { input_tokens: 20, input_tokens_details: { cached_tokens: 5 }, output_tokens: 9, output_tokens_details: { reasoning_tokens: 3 }, total_tokens: 29, cost: 0.0001, cost_details: [] };

/** A response with a reasoning item, a message (text with an annotation and logprobs, and a refusal) and a function call. */
const rich = {
  id: 'resp_1', object: 'response', created_at: 1_700_000_000, status: 'completed', model: 'test/gpt', error: null, incomplete_details: null,
  instructions: null, metadata: {}, parallel_tool_calls: true, temperature: 1, top_p: 1, tool_choice: 'auto', tools: [],
  output: [
    { id: 'rs_1', type: 'reasoning', summary: [{ type: 'summary_text', text: 'Thought about it.' }, { type: 'summary_text', text: 'Then more.' }] },
    {
      id: 'msg_1', type: 'message', role: 'assistant', status: 'completed',
      content: [
        { type: 'output_text', text: 'See example.com.', annotations: [{ type: 'url_citation', url: 'https://example.com', title: 'Ex', start_index: 4, end_index: 15 }], logprobs: [{ token: 'See', logprob: -0.1, bytes: [83, 101, 101], top_logprobs: [] }] },
        { type: 'refusal', refusal: 'Not that part.' },
      ],
    },
    { id: 'fc_1', type: 'function_call', call_id: 'call_1', name: 'lookup', arguments: '{"q":"sky"}', status: 'completed' },
    { id: 'ws_1', type: 'web_search_call', status: 'completed', action: { type: 'search', query: 'sky' } },
  ],
  usage,
};

function assemble(events: readonly unknown[]): Record<string, unknown> | undefined {
  const assembler = new ResponseAssembler();
  for (const event of events) assembler.add(event);
  return assembler.result();
}

describe('Responses answers as events and back', () => {
  it('puts a response back together from its own events exactly', () => {
    expect(assemble(responseEvents(rich))).toEqual(rich);
    const empty = { ...rich, output: [] };
    expect(assemble(responseEvents(empty))).toEqual(empty);
  });

  it('streams in the order and shapes the Responses API sends, numbered from 0', () => {
    const events = responseEvents(rich);
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    expect(events.map((e) => e.type)).toEqual([
      'response.created', 'response.in_progress',
      'response.output_item.added',
      'response.reasoning_summary_part.added', 'response.reasoning_summary_text.delta', 'response.reasoning_summary_text.done', 'response.reasoning_summary_part.done',
      'response.reasoning_summary_part.added', 'response.reasoning_summary_text.delta', 'response.reasoning_summary_text.done', 'response.reasoning_summary_part.done',
      'response.output_item.done',
      'response.output_item.added',
      'response.content_part.added', 'response.output_text.delta', 'response.output_text.annotation.added', 'response.output_text.done', 'response.content_part.done',
      'response.content_part.added', 'response.refusal.delta', 'response.refusal.done', 'response.content_part.done',
      'response.output_item.done',
      'response.output_item.added', 'response.function_call_arguments.delta', 'response.function_call_arguments.done', 'response.output_item.done',
      'response.output_item.added', 'response.output_item.done',
      'response.completed',
    ]);
    expect(events[0]).toMatchObject({ response: { id: 'resp_1', status: 'in_progress', output: [], usage: null } });
    expect(events[12]).toMatchObject({ item: { id: 'msg_1', status: 'in_progress', content: [] } });
    expect(events[14]).toMatchObject({ item_id: 'msg_1', output_index: 1, content_index: 0, delta: 'See example.com.', logprobs: rich.output[1]?.content?.[0]?.logprobs });
    expect(events[23]).toMatchObject({ item: { id: 'fc_1', arguments: '', status: 'in_progress' } });
    expect(events.at(-1)).toMatchObject({ type: 'response.completed', response: { usage } });
  });

  it('is read by the OpenAI SDK as the same response', async () => {
    const events = responseEvents(rich);
    // Up to response.completed, the SDK builds the same output from the items and their deltas.
    const built = openAiSnapshot(events.slice(0, -1));
    expect(built.output).toEqual(rich.output);
    // And from the added items and deltas alone, before any `.done` event replaces what they
    // built (the SDK keeps no logprobs from deltas: the done events carry them).
    const deltasOnly = openAiSnapshot(events.filter((e) => !String(e.type).endsWith('.done') && e.type !== 'response.completed'));
    const [reasoning, message, call, search] = rich.output;
    const parts = message?.content?.map((part) => ('logprobs' in part ? { ...part, logprobs: [] } : part));
    expect(deltasOnly.output).toEqual([reasoning, { ...message, status: 'in_progress', content: parts }, { ...call, status: 'in_progress' }, search]);
    expect(built.output_text).toBe('See example.com.');
    const final = await openAiFinalResponse(events);
    expect(final.output_text).toBe('See example.com.');
    expect(final.usage).toEqual(usage);
  });

  it('keeps nothing of a stream that did not complete normally', () => {
    const events = responseEvents(rich);
    expect(assemble(events.slice(0, -1))).toBeUndefined();
    expect(assemble([...events, { type: 'error', code: 'server_error', message: 'x', param: null }])).toBeUndefined();
    expect(assemble(responseEvents({ ...rich, status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } }))).toBeUndefined();
    const failed = events.map((e) => (e.type === 'response.completed' ? { ...e, type: 'response.failed' } : e));
    expect(assemble(failed)).toBeUndefined();
    // A completed response that leaves out an item the stream announced.
    const short = events.map((e) => (e.type === 'response.completed' ? { ...e, response: { ...rich, output: rich.output.slice(0, 2) } } : e));
    expect(assemble(short)).toBeUndefined();
  });
});
