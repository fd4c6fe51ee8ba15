import Anthropic from '@anthropic-ai/sdk';
import OpenAI, { toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { solidPng } from '../../../fixtures/documents/test-images.js';
import { startQueueGateway, type QueueGateway } from '../../queue/queue-gateway.js';

let q: QueueGateway;
let key: { accountId: string; raw: string };

beforeAll(async () => {
  q = await startQueueGateway();
  key = await q.fundedKey(20);
}, 60_000);
afterAll(async () => q?.close());

const charges = () => q.gw.deps.c.ledger.countDocuments({ account_id: key.accountId, kind: 'charge' });

describe('Idempotency-Key with the official SDKs and the queued endpoints', () => {
  it("lets the OpenAI SDK's own retry of a 409 in-progress stream collect the stored stream, charged once", async () => {
    const client = new OpenAI({ apiKey: key.raw, baseURL: `${q.gw.url}/v1`, maxRetries: 3 });
    const before = await charges();
    const run = async () => {
      const stream = await client.chat.completions.create(
        { model: 'local/echo', stream: true, messages: [{ role: 'user', content: 'sdk stream [[local:slow=60]] [[local:chunks=5]]' }] },
        { headers: { 'Idempotency-Key': 'sdk-stream-1' } },
      );
      let text = '';
      for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
      return text;
    };
    // The second call meets the first still streaming: 409 with Retry-After, which the SDK retries.
    const [a, b] = await Promise.all([run(), new Promise((r) => setTimeout(r, 50)).then(run)]);
    expect(a).toContain('sdk stream');
    expect(b).toBe(a);
    expect((await charges()) - before).toBe(1);
  });

  it('replays an Anthropic SDK message call with the same key without charging again', async () => {
    const client = new Anthropic({ apiKey: key.raw, baseURL: q.gw.url, maxRetries: 2 });
    const before = await charges();
    const ask = () => client.messages.create({ model: 'local/echo', max_tokens: 40, messages: [{ role: 'user', content: 'anthropic once' }] }, { headers: { 'Idempotency-Key': 'anthropic-1' } });
    const [a, b] = await Promise.all([ask(), ask()]);
    expect(b).toEqual(a);
    expect((await charges()) - before).toBe(1);
  });

  it('replays image generations and multipart edits (a new boundary each time), charged once each', async () => {
    const client = new OpenAI({ apiKey: key.raw, baseURL: `${q.gw.url}/v1`, maxRetries: 0 });
    const before = await charges();
    const generate = () => client.images.generate({ model: 'local/canvas-image', prompt: 'a kite', n: 2, size: '64x64' as '256x256' }, { headers: { 'Idempotency-Key': 'img-gen-1' } });
    const first = await generate();
    expect(await generate()).toEqual(first);
    const png = await solidPng(24, 24, { r: 0, g: 0, b: 255 });
    const edit = async () =>
      client.images.edit({ model: 'local/canvas-image', prompt: 'redder', image: await toFile(png, 'in.png', { type: 'image/png' }), size: '64x64' as '256x256' }, { headers: { 'Idempotency-Key': 'img-edit-1' } });
    const edited = await edit();
    expect(await edit()).toEqual(edited);
    expect((await charges()) - before).toBe(2);
  });
});
