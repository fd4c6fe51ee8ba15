import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ledgerEntry } from '../chat/chat-client.js';
import { attemptsOf, PRICE_B, recordOf, startRoutesWorld, usd, USAGE_B, type RoutesWorld } from './routes-gateway.js';

let w: RoutesWorld;
let anthropic: Anthropic;

beforeAll(async () => {
  w = await startRoutesWorld();
  await w.model('route/fronts', ['prov-a', 'prov-b']);
  anthropic = new Anthropic({ apiKey: w.key.raw, baseURL: w.gw.url, maxRetries: 0 });
}, 60_000);
afterAll(async () => {
  await w?.close();
});

const FAIL = { type: 'error', status: 503, body: '{"error":{"message":"Service unavailable"}}' } as const;

it('Responses: the second route answers when the first fails, billed at its prices', async () => {
  w.a.setScenario(FAIL);
  const { data, response } = await w.client.responses.create({ model: 'route/fronts', input: 'hi' }).withResponse();
  expect(data.output_text).toBe('Answer from B.');
  expect(data.model).toBe('route/fronts');
  const requestId = response.headers.get('x-service-request-id') ?? '';
  expect((await ledgerEntry(w.gw.url, w.key.accountId, requestId))?.cost_usd).toBe(usd(USAGE_B, PRICE_B));
  // A quick 503 is tried once more on its route before the next.
  expect(attemptsOf(await recordOf(w, requestId)).map((a) => [a[0], a[1]])).toEqual([['prov-a', 'failed'], ['prov-a', 'failed'], ['prov-b', 'answered']]);
});

it('Responses streamed: the second route answers', async () => {
  w.a.setScenario(FAIL);
  const stream = await w.client.responses.create({ model: 'route/fronts', input: 'hi', stream: true });
  let text = '';
  for await (const event of stream) if (event.type === 'response.output_text.delta') text += event.delta;
  expect(text).toBe('Answer from B.');
});

it('Messages, whole and streamed: the second route answers', async () => {
  w.a.setScenario(FAIL);
  const { data, response } = await anthropic.messages.create({ model: 'route/fronts', max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] }).withResponse();
  expect(data.content[0]?.type === 'text' ? data.content[0].text : '').toBe('Answer from B.');
  const requestId = response.headers.get('x-service-request-id') ?? '';
  expect((await ledgerEntry(w.gw.url, w.key.accountId, requestId))?.cost_usd).toBe(usd(USAGE_B, PRICE_B));
  const stream = anthropic.messages.stream({ model: 'route/fronts', max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] });
  expect(await stream.finalText()).toBe('Answer from B.');
});
