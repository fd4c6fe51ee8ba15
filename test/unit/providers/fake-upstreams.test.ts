import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { GatewayError } from '../../../src/platform/errors/gateway-error.js';
import type { ChatCall, ChatCapability, ChatRequestBody, ChatStreamEvent } from '../../../src/providers/chat/chat-types.js';
import { createAnthropicChat } from '../../../src/providers/anthropic/anthropic-chat.js';
import { createUpstreamClient } from '../../../src/providers/http/upstream-client.js';
import { createOpenAiChat } from '../../../src/providers/openai/openai-chat.js';
import { startFakeAnthropic } from '../../fixtures/upstreams/fake-anthropic.js';
import { startFakeOpenAi, type FakeUpstream } from '../../fixtures/upstreams/fake-openai.js';
import { openAiSchema, schemaErrors } from '../../helpers/openai-spec.js';

const client = createUpstreamClient({ connectMs: 1000, firstByteMs: 300, idleMs: 300, totalMs: 5000 });
const BODY: ChatRequestBody = { model: 'x/y', messages: [{ role: 'user', content: 'Hi' }] };
const TOOLS: ChatRequestBody['tools'] = [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { location: { type: 'string' } } } } }];
const call = (body: Partial<ChatRequestBody> = {}): ChatCall => ({ upstreamModel: 'model-1', body: { ...BODY, ...body }, signal: new AbortController().signal });

async function collect(stream: AsyncIterable<ChatStreamEvent>, into: ChatStreamEvent[] = []): Promise<ChatStreamEvent[]> {
  for await (const event of stream) into.push(event);
  return into;
}
async function failure(promise: Promise<unknown>): Promise<GatewayError> {
  const err: unknown = await promise.then(() => undefined, (e: unknown) => e);
  if (!(err instanceof GatewayError)) throw new Error(`expected GatewayError, got ${String(err)}`);
  return err;
}
const text = (events: ChatStreamEvent[]) => events.flatMap((e) => (e.kind === 'delta' ? e.choices.map((c) => c.delta.content ?? '') : [])).join('');
const args = (events: ChatStreamEvent[]) => events.flatMap((e) => (e.kind === 'delta' ? e.choices.flatMap((c) => (c.delta.tool_calls ?? []).map((t) => t.function?.arguments ?? '')) : [])).join('');

/** The failure scenarios both vendors must map the same way. */
function sharedFailureTests(name: string, fake: () => FakeUpstream, chat: () => ChatCapability, errorBody: string): void {
  describe(`${name} failures over loopback`, () => {
    it('maps 429 with Retry-After', async () => {
      fake().setScenario({ type: 'error', status: 429, body: errorBody, headers: { 'retry-after': '17' } });
      const err = await failure(chat().complete(call()));
      expect([err.code, err.retryAfterSeconds]).toEqual(['rate_limited', 17]);
    });
    it('maps 500 and garbage bodies to upstream_error', async () => {
      fake().setScenario({ type: 'error', status: 500, body: errorBody });
      expect((await failure(chat().complete(call()))).code).toBe('upstream_error');
      fake().setScenario({ type: 'garbage' });
      expect((await failure(chat().complete(call()))).code).toBe('upstream_error');
      expect((await failure(collect(chat().stream(call({ stream: true }))))).code).toBe('upstream_error');
    });
    it('maps broken, truncated and reset streams to upstream_error after the deltas before them', async () => {
      for (const scenario of [{ type: 'broken-stream', afterFrames: 3 }, { type: 'truncated-stream', afterFrames: 3 }, { type: 'reset', afterFrames: 3 }, { type: 'stream-error', afterFrames: 3 }] as const) {
        fake().setScenario(scenario);
        const seen: ChatStreamEvent[] = [];
        const err = await failure(collect(chat().stream(call({ stream: true })), seen));
        expect(err.code, scenario.type).toBe('upstream_error');
        expect(seen.length, scenario.type).toBeGreaterThan(0);
        expect(seen.some((e) => e.kind === 'usage' && e.partial !== true)).toBe(false);
      }
    });
    it('maps a slow first byte and a hanging upstream to upstream_timeout', async () => {
      fake().setScenario({ type: 'slow-first-byte', delayMs: 2500 });
      expect((await failure(chat().complete(call()))).code).toBe('upstream_timeout');
      fake().setScenario({ type: 'hang' });
      expect((await failure(collect(chat().stream(call({ stream: true }))))).code).toBe('upstream_timeout');
    });
    it('maps a connection reset before the answer to upstream_error', async () => {
      fake().setScenario({ type: 'reset' });
      expect((await failure(chat().complete(call()))).code).toBe('upstream_error');
    });
  });
}

describe('fake OpenAI upstream through the real client', () => {
  let fake: FakeUpstream;
  let chat: ChatCapability;
  beforeAll(async () => {
    fake = await startFakeOpenAi({ apiKey: 'sk-fake-1' });
    chat = createOpenAiChat({ baseUrl: `${fake.url}/v1`, apiKey: 'sk-fake-1', client });
  });
  afterAll(() => fake.close());
  beforeEach(() => fake.setScenario({ type: 'normal' }));

  it('completes, sending a spec-valid body with the bearer key', async () => {
    const result = await chat.complete(call({ temperature: 0.5 }));
    expect(result.choices[0]?.message.content).toBe('Hello from the fake upstream.');
    expect(result.usage).toEqual({ promptTokens: 11, completionTokens: 7, reasoningTokens: 0 });
    const sent = fake.requests.at(-1);
    expect(sent?.path).toBe('/v1/chat/completions');
    expect(sent?.headers.authorization).toBe('Bearer sk-fake-1');
    const validate = openAiSchema('CreateChatCompletionRequest');
    expect(validate(sent?.body), schemaErrors(validate)).toBe(true);
  });

  it('streams text and tool calls with usage last', async () => {
    const events = await collect(chat.stream(call({ stream: true })));
    expect(text(events)).toBe('Hello from the fake upstream.');
    expect(events.at(-1)).toEqual({ kind: 'usage', usage: { promptTokens: 11, completionTokens: 7, reasoningTokens: 0 } });
    expect(fake.requests.at(-1)?.body).toMatchObject({ stream: true, stream_options: { include_usage: true }, model: 'model-1' });
    const tools = await collect(chat.stream(call({ stream: true, tools: TOOLS })));
    expect(JSON.parse(args(tools))).toEqual({ location: 'Paris' });
  });

  it('maps a wrong key to upstream_error without the upstream message', async () => {
    const wrong = createOpenAiChat({ baseUrl: `${fake.url}/v1`, apiKey: 'sk-wrong', client });
    const err = await failure(wrong.complete(call()));
    expect([err.code, err.status]).toEqual(['upstream_error', 502]);
    expect(err.message).not.toContain('sk-');
  });

  sharedFailureTests('openai', () => fake, () => chat, JSON.stringify({ error: { message: 'Rate limit reached', type: 'requests', param: null, code: null } }));
});

describe('fake Anthropic upstream through the real client', () => {
  let fake: FakeUpstream;
  let chat: ChatCapability;
  beforeAll(async () => {
    fake = await startFakeAnthropic({ apiKey: 'sk-ant-fake' });
    chat = createAnthropicChat({ baseUrl: fake.url, apiKey: 'sk-ant-fake', client });
  });
  afterAll(() => fake.close());
  beforeEach(() => fake.setScenario({ type: 'normal' }));

  it('completes with thinking and tool use', async () => {
    const result = await chat.complete(call({ tools: TOOLS, reasoning: { effort: 'low' } }));
    expect(result.choices[0]?.message).toMatchObject({ content: 'Checking.', reasoning: 'Let me think about this.' });
    expect(JSON.parse(result.choices[0]?.message.tool_calls?.[0]?.function.arguments ?? '')).toEqual({ location: 'Paris' });
    expect(result.usage).toMatchObject({ promptTokens: 25, completionTokens: 9 });
    const sent = fake.requests.at(-1);
    expect(sent?.headers['x-api-key']).toBe('sk-ant-fake');
    expect(sent?.headers['anthropic-version']).toBe('2023-06-01');
    expect(sent?.body).toMatchObject({ model: 'model-1', thinking: { type: 'enabled', budget_tokens: 1024 } });
  });

  it('streams text with usage last', async () => {
    const events = await collect(chat.stream(call({ stream: true })));
    expect(text(events)).toBe('Hello from the fake Claude.');
    expect(events.at(-1)).toMatchObject({ kind: 'usage', usage: { promptTokens: 25, completionTokens: 9, reasoningTokens: 0 } });
  });

  it('maps a wrong key to upstream_error', async () => {
    const wrong = createAnthropicChat({ baseUrl: fake.url, apiKey: 'sk-ant-wrong', client });
    const err = await failure(wrong.complete(call()));
    expect([err.code, err.status]).toEqual(['upstream_error', 502]);
    expect(err.message).not.toContain('x-api-key');
  });

  it('maps 529 overloaded to a 502', async () => {
    fake.setScenario({ type: 'error', status: 529, body: JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }) });
    const err = await failure(chat.complete(call()));
    expect([err.code, err.status]).toEqual(['upstream_error', 502]);
  });

  sharedFailureTests('anthropic', () => fake, () => chat, JSON.stringify({ type: 'error', error: { type: 'rate_limit_error', message: 'Rate limited' } }));
});
