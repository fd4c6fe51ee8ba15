import Anthropic, { APIError } from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chargedFor, nanoOf, startFrontGateway, type FrontGateway } from './front-gateway.js';

/** Usage as Farebox sends it: Anthropic's type plus `cost`. */
type CostedUsage = Anthropic.Usage & { cost: number };

const PNG_1X1 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

const WEATHER: Anthropic.Tool = {
  name: 'get_weather',
  description: 'Weather by city',
  input_schema: { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] },
};

let gw: FrontGateway;
let client: Anthropic;

beforeAll(async () => {
  gw = await startFrontGateway();
  // The SDK appends /v1/messages to the base URL and sends the key as x-api-key.
  client = new Anthropic({ apiKey: gw.funded.raw, baseURL: gw.web.url, maxRetries: 0 });
}, 180_000);
afterAll(async () => gw?.close());

describe('the Anthropic SDK on POST /v1/messages', () => {
  it('answers text and images; usage.cost equals the ledger charge', async () => {
    const { data, response } = await client.messages
      .create({
        model: 'local/echo',
        max_tokens: 200,
        system: [{ type: 'text', text: 'be brief' }],
        messages: [{ role: 'user', content: [{ type: 'text', text: 'hello claude sdk' }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG_1X1 } }] }],
      })
      .withResponse();
    expect(data.type).toBe('message');
    expect(data.model).toBe('local/echo');
    expect(data.stop_reason).toBe('end_turn');
    expect(data.content).toEqual([{ type: 'text', text: 'Echo: hello claude sdk [1 image received]' }]);
    const usage = data.usage as CostedUsage;
    expect(usage.cost).toBeGreaterThan(0);
    expect(await chargedFor(gw, response.headers.get('x-service-request-id') ?? '')).toBe(nanoOf(usage.cost));
  });

  it('streams with thinking: the events in order, message_delta usage with the ledger cost', async () => {
    const { data: stream, response } = await client.messages
      .create({ model: 'local/echo', max_tokens: 300, thinking: { type: 'enabled', budget_tokens: 100 }, messages: [{ role: 'user', content: 'think [[local:chunks=3]]' }], stream: true })
      .withResponse();
    const events: Anthropic.RawMessageStreamEvent[] = [];
    for await (const event of stream) events.push(event);
    const types = events.map((e) => e.type);
    expect(types[0]).toBe('message_start');
    expect(types.slice(-2)).toEqual(['message_delta', 'message_stop']);
    const starts = events.flatMap((e) => (e.type === 'content_block_start' ? [e.content_block.type] : []));
    expect(starts).toEqual(['thinking', 'text']);
    expect(types.filter((t) => t === 'content_block_stop')).toHaveLength(2);
    const thinking = events.flatMap((e) => (e.type === 'content_block_delta' && e.delta.type === 'thinking_delta' ? [e.delta.thinking] : [])).join('');
    expect(thinking).toContain('The user wrote');
    const text = events.flatMap((e) => (e.type === 'content_block_delta' && e.delta.type === 'text_delta' ? [e.delta.text] : [])).join('');
    expect(text).toBe('Echo: think');
    const delta = events.find((e) => e.type === 'message_delta');
    if (delta?.type !== 'message_delta') throw new Error('expected message_delta');
    const cost = (delta.usage as unknown as CostedUsage).cost;
    expect(cost).toBeGreaterThan(0);
    expect(await chargedFor(gw, response.headers.get('x-service-request-id') ?? '')).toBe(nanoOf(cost));
  });

  it('runs a tool round trip through messages.stream (input_json_delta, then tool_result)', async () => {
    const stream = client.messages.stream({ model: 'local/echo', max_tokens: 200, tools: [WEATHER], messages: [{ role: 'user', content: 'Use get_weather: weather in Paris?' }] });
    const partials: string[] = [];
    stream.on('inputJson', (partial) => partials.push(partial));
    const first = await stream.finalMessage();
    expect(first.stop_reason).toBe('tool_use');
    const use = first.content.find((b) => b.type === 'tool_use');
    if (use?.type !== 'tool_use') throw new Error('expected tool_use');
    expect(use.name).toBe('get_weather');
    expect(use.input).toHaveProperty('location');
    expect(partials.length).toBeGreaterThan(0);
    const second = await client.messages.create({
      model: 'local/echo',
      max_tokens: 200,
      tools: [WEATHER],
      messages: [
        { role: 'user', content: 'Use get_weather: weather in Paris?' },
        { role: 'assistant', content: first.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: '{"temp_c": 21}' }] },
      ],
    });
    expect(second.content).toEqual([{ type: 'text', text: 'Tool result: {"temp_c": 21}' }]);
  });

  it('reports a failure after the stream started: usage first, then the error event the SDK throws', async () => {
    const { data: stream, response } = await client.messages
      .create({ model: 'local/echo', max_tokens: 200, messages: [{ role: 'user', content: 'break [[local:chunks=5]] [[local:fail-after=2]]' }], stream: true })
      .withResponse();
    const events: Anthropic.RawMessageStreamEvent[] = [];
    const thrown = await (async () => {
      for await (const event of stream) events.push(event);
    })().then(() => undefined, (err: unknown) => err);
    expect(thrown).toBeInstanceOf(APIError);
    expect(events.filter((e) => e.type === 'content_block_delta')).toHaveLength(2);
    const delta = events.at(-1);
    if (delta?.type !== 'message_delta') throw new Error('expected message_delta before the error');
    const cost = (delta.usage as unknown as CostedUsage).cost;
    expect(await chargedFor(gw, response.headers.get('x-service-request-id') ?? '')).toBe(nanoOf(cost));
  });

  it('authenticates with Authorization: Bearer too', async () => {
    const bearer = new Anthropic({ authToken: gw.funded.raw, apiKey: null, baseURL: gw.web.url, maxRetries: 0 });
    const message = await bearer.messages.create({ model: 'local/echo', max_tokens: 50, messages: [{ role: 'user', content: 'bearer' }] });
    expect(message.content).toEqual([{ type: 'text', text: 'Echo: bearer' }]);
  });

  it('answers errors in a body Anthropic SDK and OpenAI-style clients both read', async () => {
    const res = await fetch(`${gw.web.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': gw.funded.raw, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'local/echo', messages: [{ role: 'user', content: 'no max_tokens' }] }),
    });
    expect(res.status).toBe(400);
    expect(res.headers.get('x-service-request-id')).toMatch(/^req_/);
    expect(res.headers.get('request-id')).toBe(res.headers.get('x-service-request-id'));
    expect(await res.json()).toEqual({ type: 'error', error: { type: 'invalid_request_error', code: 'invalid_request', param: 'max_tokens', message: expect.stringContaining('max_tokens') } });
    const error = await client.messages.create({ model: 'nope/nothing', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] }).then(() => undefined, (err: unknown) => err);
    expect(error).toBeInstanceOf(Anthropic.NotFoundError);
    expect((error as APIError).requestID).toMatch(/^req_/);
  });

  it('answers 402 to a key without balance, and 401 to an unknown key', async () => {
    const broke = new Anthropic({ apiKey: gw.broke.raw, baseURL: gw.web.url, maxRetries: 0 });
    const error = await broke.messages.create({ model: 'local/echo', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] }).then(() => undefined, (err: unknown) => err);
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).status).toBe(402);
    expect((error as APIError).error).toMatchObject({ type: 'error', error: { type: 'billing_error', code: 'insufficient_credits' } });
    const stranger = new Anthropic({ apiKey: 'sk-nope', baseURL: gw.web.url, maxRetries: 0 });
    const denied = await stranger.messages.create({ model: 'local/echo', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] }).then(() => undefined, (err: unknown) => err);
    expect(denied).toBeInstanceOf(Anthropic.AuthenticationError);
  });
});
