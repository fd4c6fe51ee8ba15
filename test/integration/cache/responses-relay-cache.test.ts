import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { entryCount, expectHitCharged, idOf, ledgerOf, nano, OPT_IN, post, postStream, untilEntries } from './cache-client.js';
import { GPT_RESPONSES, startUpstreamGateway, tenth, type UpstreamGateway } from './upstream-gateway.js';

let up: UpstreamGateway;
let client: OpenAI;

beforeAll(async () => {
  up = await startUpstreamGateway();
  client = new OpenAI({ apiKey: up.owner.raw, baseURL: `${up.gw.url}/v1`, maxRetries: 0, defaultHeaders: OPT_IN });
}, 120_000);
afterAll(async () => up?.close());

/** The events of a response with one message item, its text in one delta. */
const ONE_MESSAGE = [
  'response.created', 'response.in_progress', 'response.output_item.added', 'response.content_part.added', 'response.output_text.delta',
  'response.output_text.done', 'response.content_part.done', 'response.output_item.done', 'response.completed',
];

const request = (input: string) => ({ model: GPT_RESPONSES, input, max_output_tokens: 300 });
const upstreamCalls = () => up.fakes.responses.requests.length;

/** A response's usage as Farebox sends it: the API's counts plus the cost and its lines. */
function costed(response: OpenAI.Responses.Response): OpenAI.Responses.ResponseUsage & { cost: number; cost_details: Array<{ component: string; amount_usd: string }> } {
  return response.usage as OpenAI.Responses.ResponseUsage & { cost: number; cost_details: Array<{ component: string; amount_usd: string }> };
}

/** A streamed call through the OpenAI SDK: its events, the response `response.completed` carried, and the headers. */
async function sdkStream(params: ReturnType<typeof request>): Promise<{ events: OpenAI.Responses.ResponseStreamEvent[]; completed: OpenAI.Responses.Response; headers: Headers }> {
  const { data, response } = await client.responses.create({ ...params, stream: true }).withResponse();
  const events: OpenAI.Responses.ResponseStreamEvent[] = [];
  for await (const event of data) events.push(event);
  const last = events.at(-1);
  if (last?.type !== 'response.completed') throw new Error(`the stream ended with ${String(last?.type)}`);
  return { events, completed: last.response, headers: response.headers };
}

describe('exact response cache: Responses relayed to a Responses API route', () => {
  it('misses, then serves the stored response non-streamed at the hit price with the original counts', async () => {
    const body = request('relayed plain hit');
    const before = await entryCount(up.gw);
    const miss = await post(up.gw.url, '/v1/responses', up.owner.raw, body);
    expect(miss.status).toBe(200);
    expect(miss.headers.get('x-farebox-cache')).toBe('miss');
    await untilEntries(up.gw, before + 1);

    const calls = upstreamCalls();
    const hit = await post(up.gw.url, '/v1/responses', up.owner.raw, { ...body, user: 'someone' });
    expect(hit.status).toBe(200);
    expect(hit.headers.get('x-farebox-cache')).toBe('hit');
    expect(upstreamCalls()).toBe(calls);
    expect(hit.body.output).toEqual(miss.body.output);
    expect(hit.body.output[0].content[0].text).toBe('Hello from the fake Responses API.');
    // The provider's ids, as the relayed answer had them; the catalog id as the model.
    expect(hit.body).toMatchObject({ id: miss.body.id, status: 'completed', model: GPT_RESPONSES });
    const { cost: _cost, cost_details: _lines, ...counts } = miss.body.usage;
    expect(hit.body.usage).toMatchObject(counts);
    await expectHitCharged(up.gw, idOf(hit), hit.body.usage, tenth(nano(miss.body.usage.cost)));
  });

  it('stores a streamed answer and replays it as a stream the OpenAI SDK reads as the same response', async () => {
    const params = request('relayed streamed hit');
    const before = await entryCount(up.gw);
    const miss = await sdkStream(params);
    expect(miss.headers.get('x-farebox-cache')).toBe('miss');
    await untilEntries(up.gw, before + 1);

    const calls = upstreamCalls();
    const hit = await sdkStream(params);
    expect(hit.headers.get('x-farebox-cache')).toBe('hit');
    expect(hit.events.map((e) => e.type)).toEqual(ONE_MESSAGE);
    expect(hit.events.map((e) => e.sequence_number)).toEqual(hit.events.map((_, i) => i));
    const { cost: _c, cost_details: _d, ...counts } = costed(miss.completed);
    expect(hit.completed.usage).toMatchObject(counts);
    expect(hit.completed.output).toEqual(miss.completed.output);
    // The SDK's own helper too (it adds its parsed fields to what it read).
    const final = await client.responses.stream(params).finalResponse();
    expect(final.output).toMatchObject(miss.completed.output);
    expect(final.output_text).toBe('Hello from the fake Responses API.');
    expect(upstreamCalls()).toBe(calls);
    const missCost = (await ledgerOf(up.gw, idOf(miss))).cost;
    await expectHitCharged(up.gw, idOf(hit), costed(hit.completed), tenth(missCost));
  });

  it('serves a non-streamed answer as a stream and a streamed one non-streamed, with the same content', async () => {
    const first = request('made plain, asked streamed');
    let before = await entryCount(up.gw);
    const plainMiss = await post(up.gw.url, '/v1/responses', up.owner.raw, first);
    await untilEntries(up.gw, before + 1);
    const streamedHit = await postStream(up.gw.url, '/v1/responses', up.owner.raw, first);
    expect(streamedHit.headers.get('x-farebox-cache')).toBe('hit');
    expect(streamedHit.headers.get('x-request-id')).toBe(idOf(streamedHit));
    expect(streamedHit.events.map((e) => e.event)).toEqual(ONE_MESSAGE);
    expect(streamedHit.events[0]?.data.response).toMatchObject({ id: plainMiss.body.id, status: 'in_progress', output: [] });
    expect(streamedHit.events[4]?.data.delta).toBe('Hello from the fake Responses API.');
    const completed = streamedHit.events.at(-1)?.data.response;
    expect(completed.output).toEqual(plainMiss.body.output);
    await expectHitCharged(up.gw, idOf(streamedHit), completed.usage, tenth(nano(plainMiss.body.usage.cost)));

    const second = request('made streamed, asked plain');
    before = await entryCount(up.gw);
    const streamedMiss = await postStream(up.gw.url, '/v1/responses', up.owner.raw, second);
    expect(streamedMiss.headers.get('x-farebox-cache')).toBe('miss');
    const missResponse = streamedMiss.events.at(-1)?.data.response;
    await untilEntries(up.gw, before + 1);
    const plainHit = await post(up.gw.url, '/v1/responses', up.owner.raw, second);
    expect(plainHit.headers.get('x-farebox-cache')).toBe('hit');
    expect(plainHit.body.output).toEqual(missResponse.output);
    expect(plainHit.body.usage.input_tokens).toBe(missResponse.usage.input_tokens);
    await expectHitCharged(up.gw, idOf(plainHit), plainHit.body.usage, tenth(nano(missResponse.usage.cost)));
  });

  it('stores nothing of a stream the upstream cut, so the same request runs again', async () => {
    // Cut in the middle of the text, and cut just before response.completed.
    for (const [n, afterFrames] of [[1, 6], [2, 13]] as const) {
      const body = request(`cut by the upstream ${n}`);
      const before = await entryCount(up.gw);
      up.fakes.responses.setScenario({ type: 'reset', afterFrames });
      try {
        const cut = await postStream(up.gw.url, '/v1/responses', up.owner.raw, body);
        expect(cut.headers.get('x-farebox-cache')).toBe('miss');
        expect(cut.events.at(-1)?.event).toBe('error');
      } finally {
        up.fakes.responses.setScenario({ type: 'normal' });
      }
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await entryCount(up.gw)).toBe(before);
      const calls = upstreamCalls();
      const again = await post(up.gw.url, '/v1/responses', up.owner.raw, body);
      expect(again.headers.get('x-farebox-cache')).toBe('miss');
      expect(upstreamCalls()).toBe(calls + 1);
    }
  });
});
