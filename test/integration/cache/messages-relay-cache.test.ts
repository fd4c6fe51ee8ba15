import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../../helpers/admin-client.js';
import { waitRecord } from '../ledger/records/records-client.js';
import { entryCount, expectHitCharged, idOf, ledgerOf, nano, OPT_IN, post, postStream, untilEntries, type SseResult } from './cache-client.js';
import { CLAUDE, startUpstreamGateway, tenth, type UpstreamGateway } from './upstream-gateway.js';

let up: UpstreamGateway;
let client: Anthropic;
const HEADERS = { ...OPT_IN, 'anthropic-version': '2023-06-01' };

beforeAll(async () => {
  up = await startUpstreamGateway();
  client = new Anthropic({ apiKey: up.owner.raw, baseURL: up.gw.url, maxRetries: 0, defaultHeaders: OPT_IN });
}, 120_000);
afterAll(async () => up?.close());

const request = (content: string, extra: Record<string, unknown> = {}) => ({ model: CLAUDE, max_tokens: 300, messages: [{ role: 'user' as const, content }], ...extra });
const upstreamCalls = () => up.fakes.anthropic.requests.length;

/** A streamed call through the Anthropic SDK: the message it put together, and the response's headers. */
async function sdkStream(params: Anthropic.MessageStreamParams): Promise<{ message: Anthropic.Message; headers: Headers }> {
  const stream = client.messages.stream(params);
  const { response } = await stream.withResponse();
  return { message: await stream.finalMessage(), headers: response.headers };
}

/** The text of a Messages stream's text deltas. */
const streamedText = (result: SseResult) => result.events.filter((e) => e.data.delta?.type === 'text_delta').map((e) => e.data.delta.text).join('');

describe('exact response cache: Messages relayed to an Anthropic route', () => {
  it('misses, then serves the stored message non-streamed at the hit price with the original counts', async () => {
    const body = request('relayed plain hit');
    const before = await entryCount(up.gw);
    const miss = await post(up.gw.url, '/v1/messages', up.owner.raw, body, HEADERS);
    expect(miss.status).toBe(200);
    expect(miss.headers.get('x-farebox-cache')).toBe('miss');
    await untilEntries(up.gw, before + 1);

    const calls = upstreamCalls();
    const hit = await post(up.gw.url, '/v1/messages', up.owner.raw, { ...body, metadata: { user_id: 'someone' } }, HEADERS);
    expect(hit.status).toBe(200);
    expect(hit.headers.get('x-farebox-cache')).toBe('hit');
    expect(upstreamCalls()).toBe(calls);
    expect(hit.body.content).toEqual(miss.body.content);
    expect(hit.body.content[0].text).toBe('Hello from the fake Claude.');
    // The provider's id, as the relayed answer had it; the catalog id as the model.
    expect(hit.body).toMatchObject({ id: miss.body.id, type: 'message', model: CLAUDE, stop_reason: 'end_turn' });
    const { cost: _cost, cost_details: _lines, ...counts } = miss.body.usage;
    expect(hit.body.usage).toMatchObject(counts);
    expect(idOf(hit)).not.toBe(idOf(miss));
    await expectHitCharged(up.gw, idOf(hit), hit.body.usage, tenth(nano(miss.body.usage.cost)));
    await waitRecord(up.gw.url, idOf(hit));
    const receipt = await call(up.gw.url, 'GET', `/v1/requests/${idOf(hit)}/receipt`, { token: up.owner.raw });
    expect(receipt.body.data.receipt).toMatchObject({ outcome: 'cache_hit', cache_hit_of: idOf(miss), cost_details: [{ component: 'cache_hit' }] });
  });

  it('stores a streamed answer and replays it as a stream the Anthropic SDK reads as the same message', async () => {
    const params = request('relayed streamed hit');
    const before = await entryCount(up.gw);
    const miss = await sdkStream(params);
    expect(miss.headers.get('x-farebox-cache')).toBe('miss');
    await untilEntries(up.gw, before + 1);

    const calls = upstreamCalls();
    const hit = await sdkStream(params);
    expect(hit.headers.get('x-farebox-cache')).toBe('hit');
    expect(upstreamCalls()).toBe(calls);
    expect(hit.message).toEqual(miss.message);
    expect(hit.message.model).toBe(CLAUDE);
    const missCost = (await ledgerOf(up.gw, idOf(miss))).cost;
    expect((await ledgerOf(up.gw, idOf(hit))).cost).toBe(tenth(missCost));

    // On the wire: Anthropic's events in order, the hit's cost in message_delta's usage.
    const raw = await postStream(up.gw.url, '/v1/messages', up.owner.raw, params, HEADERS);
    expect(raw.headers.get('x-farebox-cache')).toBe('hit');
    expect(raw.headers.get('request-id')).toBe(idOf(raw));
    expect(raw.events.map((e) => e.event)).toEqual(['message_start', 'content_block_start', 'content_block_delta', 'content_block_stop', 'message_delta', 'message_stop']);
    expect(raw.events.every((e) => e.event === e.data.type)).toBe(true);
    expect(raw.events[0]?.data.message).toMatchObject({ content: [], stop_reason: null, usage: { input_tokens: miss.message.usage.input_tokens } });
    const delta = raw.events[4]?.data;
    expect(delta.delta.stop_reason).toBe('end_turn');
    expect(delta.usage.output_tokens).toBe(miss.message.usage.output_tokens);
    await expectHitCharged(up.gw, idOf(raw), delta.usage, tenth(missCost));
  });

  it('serves a non-streamed answer as a stream and a streamed one non-streamed, with the same content', async () => {
    const first = request('made plain, asked streamed');
    let before = await entryCount(up.gw);
    const plainMiss = await post(up.gw.url, '/v1/messages', up.owner.raw, first, HEADERS);
    await untilEntries(up.gw, before + 1);
    const streamedHit = await sdkStream(first);
    expect(streamedHit.headers.get('x-farebox-cache')).toBe('hit');
    expect(streamedHit.message.content).toEqual(plainMiss.body.content);
    expect(streamedHit.message.id).toBe(plainMiss.body.id);

    const second = request('made streamed, asked plain');
    before = await entryCount(up.gw);
    const streamedMiss = await postStream(up.gw.url, '/v1/messages', up.owner.raw, second, HEADERS);
    expect(streamedMiss.headers.get('x-farebox-cache')).toBe('miss');
    const missDelta = streamedMiss.events.find((e) => e.event === 'message_delta')?.data;
    await untilEntries(up.gw, before + 1);
    const plainHit = await post(up.gw.url, '/v1/messages', up.owner.raw, second, HEADERS);
    expect(plainHit.headers.get('x-farebox-cache')).toBe('hit');
    expect(plainHit.body.content).toEqual([{ type: 'text', text: streamedText(streamedMiss) }]);
    expect(plainHit.body.usage.output_tokens).toBe(missDelta.usage.output_tokens);
    expect(plainHit.body.usage.input_tokens).toBe(streamedMiss.events[0]?.data.message.usage.input_tokens);
    await expectHitCharged(up.gw, idOf(plainHit), plainHit.body.usage, tenth(nano(missDelta.usage.cost)));
  });

  it('keeps thinking, its signature, redacted thinking and tool use whichever way the answer was made', async () => {
    const tools = [{ name: 'get_weather', description: 'Weather by city', input_schema: { type: 'object' as const, properties: { location: { type: 'string' } } } }];
    const params = request('think, then call the tool', { tools, thinking: { type: 'enabled', budget_tokens: 200 } });
    const before = await entryCount(up.gw);
    const miss = await sdkStream(params);
    expect(miss.message.content.map((b) => b.type)).toEqual(['thinking', 'redacted_thinking', 'text', 'tool_use']);
    await untilEntries(up.gw, before + 1);

    const plain = await post(up.gw.url, '/v1/messages', up.owner.raw, params, HEADERS);
    expect(plain.headers.get('x-farebox-cache')).toBe('hit');
    expect(plain.body.content).toEqual(miss.message.content);
    expect(plain.body.content[0]).toEqual({ type: 'thinking', thinking: 'Let me think about this.', signature: 'sig_fake' });
    expect(plain.body.content[3]).toMatchObject({ type: 'tool_use', id: 'toolu_fake1', name: 'get_weather', input: { location: 'Paris' } });
    expect(plain.body.stop_reason).toBe('tool_use');

    const streamed = await sdkStream(params);
    expect(streamed.headers.get('x-farebox-cache')).toBe('hit');
    expect(streamed.message).toEqual(miss.message);
  });

  it('stores nothing of a stream the upstream cut, so the same request runs again', async () => {
    // Cut in the middle of the text, and cut after message_delta (charged) but before message_stop.
    for (const [n, afterFrames] of [[1, 5], [2, 10]] as const) {
      const body = request(`cut by the upstream ${n}`);
      const before = await entryCount(up.gw);
      up.fakes.anthropic.setScenario({ type: 'reset', afterFrames });
      try {
        const cut = await postStream(up.gw.url, '/v1/messages', up.owner.raw, body, HEADERS);
        expect(cut.headers.get('x-farebox-cache')).toBe('miss');
        expect(cut.events.at(-1)?.event).toBe('error');
        expect(cut.events.some((e) => e.event === 'message_delta')).toBe(afterFrames === 10);
      } finally {
        up.fakes.anthropic.setScenario({ type: 'normal' });
      }
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await entryCount(up.gw)).toBe(before);
      const calls = upstreamCalls();
      const again = await post(up.gw.url, '/v1/messages', up.owner.raw, body, HEADERS);
      expect(again.headers.get('x-farebox-cache')).toBe('miss');
      expect(upstreamCalls()).toBe(calls + 1);
    }
  });
});
