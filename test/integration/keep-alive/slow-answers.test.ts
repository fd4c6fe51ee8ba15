import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAKE_PNG_B64 } from '../../fixtures/upstreams/fake-openai-images.js';
import { solidPng } from '../../fixtures/documents/test-images.js';
import { call } from '../../helpers/admin-client.js';
import { scaled, startKeepAliveSetup, type KeepAliveSetup } from './keep-alive-gateway.js';

/** The fake OpenAI upstream's answer, word by word. */
const REPLY = 'Hello from the fake upstream.';

let setup: KeepAliveSetup;
let key: { accountId: string; raw: string };
let openai: OpenAI;

beforeAll(async () => {
  setup = await startKeepAliveSetup();
  key = await setup.warmKey();
  openai = new OpenAI({ apiKey: key.raw, baseURL: `${setup.router.url}/v1`, maxRetries: 0 });
}, 120_000);
afterAll(async () => {
  await setup?.close();
});

/** The ledger's charge for a request, in USD, once it is durable. */
async function chargedUsd(requestId: string | null): Promise<number | undefined> {
  const charge = await setup.q.charge(requestId ?? '');
  return charge === null ? undefined : Number(charge.cost) / 1e9;
}

/** What the router did with the request to `path` that answered last. */
function routed(path: string) {
  return setup.router.routed.findLast((r) => r.path === path);
}

describe.concurrent('slow answers through a router with Heroku\'s limits (30 s to the first byte, 55 s idle; scaled)', () => {
  it('a 45 s image reaches the client whole, charged once', async () => {
    const { data, response } = await openai.images.generate({ model: 'slow/image', prompt: 'a lighthouse' }).withResponse();
    expect(data.data?.[0]?.b64_json).toBe(FAKE_PNG_B64);
    const cost = (data as unknown as { usage: { cost: number } }).usage.cost;
    expect(cost).toBe(0.04);
    expect(await chargedUsd(response.headers.get('x-service-request-id'))).toBe(cost);
    expect(routed('/v1/images/generations')?.ms).toBeGreaterThanOrEqual(scaled(45));
  });

  it('a 120 s OCR job reaches the client whole, charged once', async () => {
    const image = `data:image/png;base64,${(await solidPng(20, 20, { r: 9, g: 9, b: 9 })).toString('base64')}`;
    const { data, response } = await openai
      .post<{ pages: Array<{ markdown: string }>; usage: { cost: number } }>('/ocr', { body: { model: 'slow/ocr', document: { type: 'image_url', image_url: image } } })
      .withResponse();
    expect(data.pages[0]?.markdown).toContain('Invoice 4217');
    expect(data.usage.cost).toBeGreaterThan(0);
    expect(await chargedUsd(response.headers.get('x-service-request-id'))).toBe(data.usage.cost);
    expect(routed('/v1/ocr')?.error).toBeUndefined();
  });

  it('a 50 s non-streamed chat reaches the client whole, charged once', async () => {
    const { data, response } = await openai.chat.completions.create({ model: 'slow/chat', messages: [{ role: 'user', content: 'hi' }] }).withResponse();
    expect(data.choices[0]?.message.content).toBe(REPLY);
    const cost = (data.usage as unknown as { cost: number }).cost;
    expect(await chargedUsd(response.headers.get('x-service-request-id'))).toBe(cost);
  });

  it('Chat Completions: a stream whose first token comes after 40 s, then 70 s of silence, arrives whole', async () => {
    const { data: stream, response } = await openai.chat.completions.create({ model: 'slow/thinker', stream: true, messages: [{ role: 'user', content: 'think' }] }).withResponse();
    let text = '';
    let cost: number | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      if (chunk.usage) cost = (chunk.usage as unknown as { cost: number }).cost;
    }
    expect(text).toBe(REPLY);
    expect(cost).toBeGreaterThan(0);
    expect(await chargedUsd(response.headers.get('x-service-request-id'))).toBe(cost);
  });

  it('Responses: the same thinking stream arrives whole, with its typed events', async () => {
    const { data: stream, response } = await openai.responses.create({ model: 'slow/thinker', stream: true, input: 'think' }).withResponse();
    let text = '';
    let completed: OpenAI.Responses.Response | undefined;
    for await (const event of stream) {
      if (event.type === 'response.output_text.delta') text += event.delta;
      if (event.type === 'response.completed') completed = event.response;
    }
    expect(text).toBe(REPLY);
    const cost = (completed?.usage as unknown as { cost: number } | undefined)?.cost;
    expect(await chargedUsd(response.headers.get('x-service-request-id'))).toBe(cost);
  });

  it('Messages: the same thinking stream arrives whole through Anthropic\'s SDK (pings skipped)', async () => {
    const anthropic = new Anthropic({ apiKey: key.raw, baseURL: setup.router.url, maxRetries: 0 });
    const stream = anthropic.messages.stream({ model: 'slow/thinker', max_tokens: 200, messages: [{ role: 'user', content: 'think' }] });
    const message = await stream.finalMessage();
    expect(message.content.map((block) => (block.type === 'text' ? block.text : '')).join('')).toBe(REPLY);
    const requestId = (await stream.withResponse()).response.headers.get('x-service-request-id');
    expect(await chargedUsd(requestId)).toBeGreaterThan(0);
  });

  it('an image that fails after 40 s: the error object with its status, nothing charged', async () => {
    const { data, response } = await openai.images.generate({ model: 'slow/image-fails', prompt: 'a kite' }).withResponse();
    // Committed as 200 before the failure was known: the status is written in the error.
    expect(response.status).toBe(200);
    const { error } = data as unknown as { error: { code: string; status: number } };
    expect(error).toMatchObject({ code: 'upstream_error', status: 502 });
    expect(await chargedUsd(response.headers.get('x-service-request-id'))).toBeUndefined();
    // Answered once the worker gave up, not retried for minutes: a slow failure is not tried again.
    expect(setup.slow.failingImage.requests.length).toBe(1);
  });

  it('answers faster than the early commit are unchanged: real status codes, no leading whitespace', async () => {
    const res = await fetch(`${setup.router.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key.raw}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'local/echo', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(res.status).toBe(200);
    expect((await res.text()).startsWith('{')).toBe(true);
    const broke = await setup.q.fundedKey(0.000001);
    const refused = await call(setup.router.url, 'POST', '/v1/images/generations', { token: broke.raw, body: { model: 'slow/image', prompt: 'x' } });
    expect(refused.status).toBe(402);
  });
});
