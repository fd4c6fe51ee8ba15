import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nanoOf, startFrontGateway, type FrontGateway } from './front-gateway.js';

type CostedResponsesUsage = OpenAI.Responses.ResponseUsage & { cost: number };
type CostedMessagesUsage = Anthropic.Usage & { cost: number };

const WEATHER_OPENAI: OpenAI.Responses.FunctionTool = {
  type: 'function', name: 'get_weather', strict: false,
  parameters: { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] },
};
const WEATHER_ANTHROPIC: Anthropic.Tool = {
  name: 'get_weather', input_schema: { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] },
};

let gw: FrontGateway;
let openai: OpenAI;
let anthropic: Anthropic;

beforeAll(async () => {
  gw = await startFrontGateway();
  openai = new OpenAI({ apiKey: gw.funded.raw, baseURL: `${gw.web.url}/v1`, maxRetries: 0 });
  anthropic = new Anthropic({ apiKey: gw.funded.raw, baseURL: gw.web.url, maxRetries: 0 });
}, 180_000);
afterAll(async () => gw?.close());

describe('both front doors over fake upstreams of both kinds', () => {
  it.each([
    ['fake/gpt', 'Hello from the fake upstream.'],
    ['fake/claude', 'Hello from the fake Claude.'],
  ])('Responses API on %s, plain and streamed', async (model, reply) => {
    const res = await openai.responses.create({ model, input: 'hi' });
    expect(res.output_text).toBe(reply);
    expect((res.usage as CostedResponsesUsage).cost).toBeGreaterThan(0);
    const final = await openai.responses.stream({ model, input: 'hi' }).finalResponse();
    expect(final.output_text).toBe(reply);
    expect((final.usage as CostedResponsesUsage).cost).toBe((res.usage as CostedResponsesUsage).cost);
  });

  it.each(['fake/gpt', 'fake/claude'])('Responses API function call on %s', async (model) => {
    const final = await openai.responses.stream({ model, input: 'Weather in Paris?', tools: [WEATHER_OPENAI] }).finalResponse();
    const call = final.output.find((item) => item.type === 'function_call');
    if (call?.type !== 'function_call') throw new Error('expected a function call');
    expect(JSON.parse(call.arguments)).toEqual({ location: 'Paris' });
  });

  it.each([
    ['fake/claude', 'Hello from the fake Claude.'],
    ['fake/gpt', 'Hello from the fake upstream.'],
  ])('Messages API on %s, plain and streamed', async (model, reply) => {
    const msg = await anthropic.messages.create({ model, max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] });
    expect(msg.content).toEqual([{ type: 'text', text: reply }]);
    const final = await anthropic.messages.stream({ model, max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] }).finalMessage();
    expect(final.content).toEqual([{ type: 'text', text: reply }]);
  });

  it('Messages API on fake/claude with thinking and tools, streamed', async () => {
    const final = await anthropic.messages
      .stream({ model: 'fake/claude', max_tokens: 500, thinking: { type: 'enabled', budget_tokens: 200 }, tools: [WEATHER_ANTHROPIC], messages: [{ role: 'user', content: 'Weather?' }] })
      .finalMessage();
    // Relayed as the upstream sent it: the redacted block too.
    expect(final.content.map((b) => b.type)).toEqual(['thinking', 'redacted_thinking', 'text', 'tool_use']);
    expect(final.stop_reason).toBe('tool_use');
    const use = final.content.find((b) => b.type === 'tool_use');
    expect(use?.type === 'tool_use' ? use.input : undefined).toEqual({ location: 'Paris' });
  });
});

describe('bad input on both front doors is a clear 4xx', () => {
  const post = async (route: string, body: string) => {
    const res = await fetch(`${gw.web.url}/v1/${route}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gw.funded.raw}`, 'content-type': 'application/json' },
      body,
    });
    return { status: res.status, body: (await res.json()) as { type?: string; error: { code: string; param: string | null } } };
  };

  it.each([
    ['responses', '{"model":', 'invalid_request', null],
    ['responses', JSON.stringify({ model: 'local/echo' }), 'invalid_request', 'input'],
    ['responses', JSON.stringify({ model: 'local/echo', input: 'x', tools: [{ type: 'web_search' }], tool_choice: { type: 'web_search' } }), 'invalid_request', 'tool_choice'],
    ['responses', JSON.stringify({ model: 'local/echo', input: [{ role: 'user', content: [{ type: 'input_image', file_id: 'file_1' }] }] }), 'invalid_request', 'input.0.content.0'],
    ['responses', JSON.stringify({ model: 'local/echo', input: 'x', tools: [{ type: 'function' }] }), 'invalid_request', 'tools.0.name'],
    ['responses', JSON.stringify({ model: 'local/echo', input: 'x', max_output_tokens: -1 }), 'invalid_request', 'max_output_tokens'],
    ['responses', JSON.stringify({ model: 'nope/none', input: 'x' }), 'model_not_found', 'model'],
    ['messages', '[]', 'invalid_request', null],
    ['messages', JSON.stringify({ model: 'local/echo', max_tokens: 10, messages: [{ role: 'tool', content: 'x' }] }), 'invalid_request', 'messages.0.role'],
    ['messages', JSON.stringify({ model: 'local/echo', max_tokens: 10, messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'base64' } }] }] }), 'invalid_request', 'messages.0.content'],
    ['messages', JSON.stringify({ model: 'local/echo', max_tokens: 10, thinking: { type: 'enabled' }, messages: [{ role: 'user', content: 'x' }] }), 'invalid_request', 'thinking.budget_tokens'],
    ['messages', JSON.stringify({ model: 'local/canvas-image', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] }), 'wrong_endpoint', 'model'],
  ] as const)('%s %s → %s', async (route, body, code, param) => {
    const res = await post(route, body);
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(res.body.error.code).toBe(code);
    if (param !== null) expect(res.body.error.param).toBe(param);
    if (route === 'messages') expect(res.body.type).toBe('error');
  });
});

describe('money on both front doors', () => {
  it('under concurrency the costs clients saw sum to the ledger charges exactly', async () => {
    const accountId = await gw.admin.createAccount();
    await gw.admin.topup(accountId, 1);
    const raw = (await gw.admin.mintKey(accountId)).raw;
    const oa = new OpenAI({ apiKey: raw, baseURL: `${gw.web.url}/v1`, maxRetries: 0 });
    const an = new Anthropic({ apiKey: raw, baseURL: gw.web.url, maxRetries: 0 });
    const runs = Array.from({ length: 24 }, async (_, i): Promise<number> => {
      const text = `concurrent ${i} [[local:chunks=3]]`;
      switch (i % 4) {
        case 0:
          return ((await oa.responses.create({ model: 'local/echo', input: text })).usage as CostedResponsesUsage).cost;
        case 1:
          return ((await oa.responses.stream({ model: 'local/echo', input: text }).finalResponse()).usage as CostedResponsesUsage).cost;
        case 2:
          return ((await an.messages.create({ model: 'local/echo', max_tokens: 100, messages: [{ role: 'user', content: text }] })).usage as CostedMessagesUsage).cost;
        default: {
          const stream = await an.messages.create({ model: 'local/echo', max_tokens: 100, messages: [{ role: 'user', content: text }], stream: true });
          let cost = 0;
          for await (const event of stream) if (event.type === 'message_delta') cost = (event.usage as unknown as CostedMessagesUsage).cost;
          return cost;
        }
      }
    });
    const costs = await Promise.all(runs);
    expect(costs.every((c) => c > 0)).toBe(true);
    const reported = costs.reduce((t, c) => t + nanoOf(c), 0n);
    const charges = await gw.setup.deps.c.ledger.find({ account_id: accountId, kind: 'charge' }).toArray();
    expect(charges).toHaveLength(24);
    expect(charges.reduce((t, e) => t + e.cost, 0n)).toBe(reported);
    const entries = await gw.setup.deps.c.ledger.find({ account_id: accountId }).toArray();
    const balance = entries.reduce((t, e) => t + e.credit - e.charged, 0n);
    expect((await gw.setup.deps.accounts.get(accountId)).balance).toBe(balance);
  });

  it.each(['responses', 'messages'] as const)('a client that leaves a %s stream is charged once for what was produced', async (route) => {
    const accountId = await gw.admin.createAccount();
    await gw.admin.topup(accountId, 1);
    const raw = (await gw.admin.mintKey(accountId)).raw;
    const controller = new AbortController();
    const content = 'leave early [[local:chunks=20]] [[local:slow=100]]';
    const body = route === 'responses'
      ? { model: 'local/echo', input: content, stream: true }
      : { model: 'local/echo', max_tokens: 200, messages: [{ role: 'user', content }], stream: true };
    const res = await fetch(`${gw.web.url}/v1/${route}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${raw}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: controller.signal,
    });
    expect(res.status).toBe(200);
    const requestId = res.headers.get('x-service-request-id') ?? '';
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let seen = '';
    // Read until the first text delta arrived, then hang up.
    while (!/text\.delta|text_delta/.test(seen)) {
      const step = await reader.read();
      if (step.done) throw new Error(`stream ended before any text: ${seen}`);
      seen += decoder.decode(step.value);
    }
    controller.abort();
    let charge;
    for (let i = 0; i < 100 && charge === undefined; i++) {
      charge = (await gw.setup.deps.c.ledger.findOne({ _id: requestId })) ?? undefined;
      if (charge === undefined) await new Promise((r) => setTimeout(r, 50));
    }
    expect(charge?.kind).toBe('charge');
    expect(charge!.cost).toBeGreaterThan(0n);
    expect(await gw.setup.deps.c.ledger.countDocuments({ account_id: accountId, kind: 'charge' })).toBe(1);
  });
});
