import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeLogprobs } from '../../fixtures/upstreams/fake-openai.js';
import { entryCount, expectHitCharged, idOf, nano, post, postStream, untilEntries } from './cache-client.js';
import { GPT_LOGPROBS, startUpstreamGateway, tenth, type UpstreamGateway } from './upstream-gateway.js';

let up: UpstreamGateway;

beforeAll(async () => {
  up = await startUpstreamGateway();
}, 120_000);
afterAll(async () => up?.close());

describe('exact response cache: Chat Completions with log probabilities', () => {
  it('stores a streamed answer with its log probabilities and replays them whole, streamed or not', async () => {
    const body = { model: GPT_LOGPROBS, logprobs: true, messages: [{ role: 'user', content: 'with logprobs' }] };
    const before = await entryCount(up.gw);
    const miss = await postStream(up.gw.url, '/v1/chat/completions', up.owner.raw, { ...body, stream_options: { include_usage: true } });
    expect(miss.headers.get('x-farebox-cache')).toBe('miss');
    const tokens = miss.events.flatMap((e) => e.data.choices?.[0]?.logprobs?.content ?? []);
    // One token a word, as the upstream streamed them.
    expect(tokens).toEqual('Hello from the fake upstream.'.split(/(?<= )/).flatMap((word) => fakeLogprobs(word).content as unknown[]));
    const missUsage = miss.events.at(-1)?.data.usage;
    await untilEntries(up.gw, before + 1);

    const calls = up.fakes.openai.requests.length;
    const plain = await post(up.gw.url, '/v1/chat/completions', up.owner.raw, body);
    expect(plain.headers.get('x-farebox-cache')).toBe('hit');
    expect(plain.body.choices[0].message.content).toBe('Hello from the fake upstream.');
    expect(plain.body.choices[0].logprobs).toEqual({ content: tokens, refusal: null });
    await expectHitCharged(up.gw, idOf(plain), plain.body.usage, tenth(nano(missUsage.cost)));

    const streamed = await postStream(up.gw.url, '/v1/chat/completions', up.owner.raw, body);
    expect(streamed.headers.get('x-farebox-cache')).toBe('hit');
    const carrying = streamed.events.filter((e) => e.data.choices?.[0]?.logprobs != null);
    expect(carrying).toHaveLength(1);
    expect(carrying[0]?.data.choices[0]).toMatchObject({ delta: { content: 'Hello from the fake upstream.' }, logprobs: { content: tokens, refusal: null } });
    expect(up.fakes.openai.requests.length).toBe(calls);
  });
});
