import Anthropic, { APIError } from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anthropicInputTokens } from '../../../fixtures/upstreams/vendor-counting.js';
import { startFrontGateway, type FrontGateway } from './front-gateway.js';

let gw: FrontGateway;
let anthropic: Anthropic;
let openai: OpenAI;

beforeAll(async () => {
  gw = await startFrontGateway();
  anthropic = new Anthropic({ apiKey: gw.funded.raw, baseURL: gw.web.url, maxRetries: 0 });
  openai = new OpenAI({ apiKey: gw.funded.raw, baseURL: `${gw.web.url}/v1`, maxRetries: 0 });
}, 180_000);
afterAll(async () => gw?.close());

const TOOLS: Anthropic.Tool[] = [{ name: 'get_weather', description: 'Weather by city', input_schema: { type: 'object', properties: { city: { type: 'string' } } } }];
const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'How many tokens is this prompt, counted exactly?' }];

async function balance(): Promise<string> {
  const res = await fetch(`${gw.web.url}/v1/credits`, { headers: { authorization: `Bearer ${gw.funded.raw}` } });
  return ((await res.json()) as { data: { balance_usd: string } }).data.balance_usd;
}

describe('token counts: POST /v1/messages/count_tokens and /v1/responses/input_tokens', () => {
  it('counts a local model exactly: the count equals the input the model then bills', async () => {
    const { data: counted, response } = await anthropic.messages.countTokens({ model: 'local/echo', messages, tools: TOOLS }).withResponse();
    expect(response.headers.get('x-farebox-token-count')).toBe('exact');
    const answer = await anthropic.messages.create({ model: 'local/echo', max_tokens: 20, messages, tools: TOOLS });
    expect(counted.input_tokens).toBe(answer.usage.input_tokens);
  });

  it("answers the upstream's own count where the route speaks the API, with ?beta=true too", async () => {
    const before = gw.upstreams.anthropic.requests.length;
    const res = await fetch(`${gw.web.url}/v1/messages/count_tokens?beta=true`, {
      method: 'POST',
      headers: { 'x-api-key': gw.funded.raw, 'content-type': 'application/json', 'anthropic-beta': 'context-management-2025-06-27' },
      body: JSON.stringify({ model: 'fake/claude', messages, tools: TOOLS, thinking: { type: 'adaptive' } }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-farebox-token-count')).toBe('upstream');
    const sent = gw.upstreams.anthropic.requests.slice(before).find((r) => r.path.endsWith('/count_tokens'));
    expect(sent?.headers['anthropic-beta']).toBe('context-management-2025-06-27');
    expect(sent?.body).toMatchObject({ model: 'claude-sonnet-4-20250514', thinking: { type: 'adaptive' } });
    const body = (await res.json()) as { input_tokens: number; source: string };
    expect(body).toEqual({ input_tokens: anthropicInputTokens(sent?.body as Record<string, unknown>), source: 'upstream' });
  });

  it('answers the hold bound, marked as one, where neither is possible, and never charges', async () => {
    const before = await balance();
    const exact = await openai.responses.inputTokens.count({ model: 'local/echo', input: 'count me please' });
    const res = await fetch(`${gw.web.url}/v1/responses/input_tokens`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gw.funded.raw}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'fake/claude', input: 'count me please' }),
    });
    expect(res.headers.get('x-farebox-token-count')).toBe('bound');
    const bound = (await res.json()) as { object: string; input_tokens: number; source: string };
    expect(bound.object).toBe('response.input_tokens');
    expect(bound.source).toBe('bound');
    expect(bound.input_tokens).toBeGreaterThanOrEqual(exact.input_tokens);
    expect(await balance()).toBe(before);
  });

  it('refuses what admission refuses: a bad key, an unknown model, a malformed body', async () => {
    const bad = await fetch(`${gw.web.url}/v1/messages/count_tokens`, { method: 'POST', headers: { 'x-api-key': 'sk-fbx-nope', 'content-type': 'application/json' }, body: '{}' });
    expect(bad.status).toBe(401);
    expect(((await bad.json()) as { type: string }).type).toBe('error');
    const unknown = await anthropic.messages.countTokens({ model: 'nope/none', messages }).then(() => undefined, (err: unknown) => err);
    expect((unknown as APIError).status).toBe(404);
    const malformed = await fetch(`${gw.web.url}/v1/responses/input_tokens`, { method: 'POST', headers: { authorization: `Bearer ${gw.funded.raw}`, 'content-type': 'application/json' }, body: JSON.stringify({ model: 'local/echo', input: 7 }) });
    expect(malformed.status).toBe(400);
  });
});
