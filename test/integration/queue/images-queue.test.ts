import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../../helpers/admin-client.js';
import { solidPng } from '../../fixtures/documents/test-images.js';
import { startQueueGateway, type QueueGateway } from './queue-gateway.js';

let q: QueueGateway;
let key: { accountId: string; raw: string };

beforeAll(async () => {
  q = await startQueueGateway();
  key = await q.fundedKey();
});
afterAll(async () => q?.close());

const requestIdOf = (headers: Headers): string => headers.get('x-service-request-id') ?? '';

async function edit(form: FormData): Promise<{ status: number; body: any; requestId: string }> {
  const res = await fetch(`${q.gw.url}/v1/images/edits`, { method: 'POST', headers: { authorization: `Bearer ${key.raw}` }, body: form });
  return { status: res.status, body: await res.json(), requestId: requestIdOf(res.headers) };
}

describe('POST /v1/images/generations through the queue', () => {
  it('renders real PNGs of the requested size and charges the per-image price once', async () => {
    const res = await call(q.gw.url, 'POST', '/v1/images/generations', {
      token: key.raw,
      body: { model: 'local/canvas-image', prompt: 'a red kite', n: 2, size: '96x64' },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(2);
    const meta = await sharp(Buffer.from(res.body.data[0].b64_json, 'base64')).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['png', 96, 64]);
    expect(res.body.usage).toMatchObject({ cost: 0.004, images: 2 });
    const charge = await q.charge(requestIdOf(res.headers));
    expect(charge?.cost).toBe(4_000_000n);
    // Delivered: the job and its stored output are gone.
    expect(await q.jobs.queue('images').getJob(requestIdOf(res.headers))).toBeUndefined();
    expect(await q.jobs.store.getResult(requestIdOf(res.headers))).toBeUndefined();
  });

  it('refuses response_format url before anything is queued', async () => {
    const res = await call(q.gw.url, 'POST', '/v1/images/generations', {
      token: key.raw,
      body: { model: 'local/canvas-image', prompt: 'x', response_format: 'url' },
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'unsupported_response_format', param: 'response_format' });
  });

  it('sends chat and OCR models to their own endpoints', async () => {
    for (const model of ['local/echo', 'local/reader']) {
      const res = await call(q.gw.url, 'POST', '/v1/images/generations', { token: key.raw, body: { model, prompt: 'x' } });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('wrong_endpoint');
    }
  });

  it('maps a permanent provider error from the worker to the same 400, without a charge', async () => {
    const res = await call(q.gw.url, 'POST', '/v1/images/generations', {
      token: key.raw,
      body: { model: 'local/canvas-image', prompt: 'x', size: '5000x5000' },
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_request', param: 'size' });
    expect(await q.charge(requestIdOf(res.headers))).toBeNull();
  });
});

describe('POST /v1/images/edits (multipart)', () => {
  it('edits with several images sent as image[] and a mask', async () => {
    const form = new FormData();
    form.append('model', 'local/canvas-image');
    form.append('prompt', 'combine');
    form.append('size', '64x64');
    form.append('image[]', new Blob([await solidPng(32, 32, { r: 255, g: 0, b: 0 })], { type: 'image/png' }), 'a.png');
    form.append('image[]', new Blob([await solidPng(32, 32, { r: 0, g: 0, b: 255 })], { type: 'image/png' }), 'b.png');
    form.append('mask', new Blob([await solidPng(64, 64, { r: 0, g: 0, b: 0 })], { type: 'image/png' }), 'mask.png');
    const res = await edit(form);
    expect(res.status).toBe(200);
    const meta = await sharp(Buffer.from(res.body.data[0].b64_json, 'base64')).metadata();
    expect([meta.width, meta.height]).toEqual([64, 64]);
    expect((await q.charge(res.requestId))?.cost).toBe(2_000_000n);
  });

  it('refuses a file over the per-file limit with 413 naming the field, and queues nothing', async () => {
    const form = new FormData();
    form.append('model', 'local/canvas-image');
    form.append('prompt', 'too big');
    form.append('image[]', new Blob([await solidPng(8, 8, { r: 1, g: 2, b: 3 })], { type: 'image/png' }), 'ok.png');
    form.append('image[]', new Blob([Buffer.alloc(9 * 1024 * 1024, 7)], { type: 'image/png' }), 'huge.png');
    const res = await edit(form);
    expect(res.status).toBe(413);
    expect(res.body.error).toMatchObject({ code: 'payload_too_large', param: 'image[]' });
    expect(await q.jobs.queue('images').getJob(res.requestId)).toBeUndefined();
    const counts = await q.jobs.queue('images').getJobCounts('waiting', 'active', 'delayed', 'prioritized');
    expect(Object.values(counts).reduce((a, b) => a + b, 0)).toBe(0);
  });

  it('needs a model with REFERENCES', async () => {
    const form = new FormData();
    form.append('model', 'local/instant-image');
    form.append('prompt', 'x');
    form.append('image', new Blob([await solidPng(8, 8, { r: 1, g: 2, b: 3 })], { type: 'image/png' }), 'a.png');
    const res = await edit(form);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'model_capability_missing', param: 'model' });
  });

  it('refuses bytes that are not an image, and a body that is not multipart', async () => {
    const form = new FormData();
    form.append('model', 'local/canvas-image');
    form.append('prompt', 'x');
    form.append('image', new Blob([Buffer.from('definitely not a png')], { type: 'image/png' }), 'a.png');
    const bad = await edit(form);
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'invalid_request', param: 'image' });

    const json = await call(q.gw.url, 'POST', '/v1/images/edits', { token: key.raw, body: { model: 'local/canvas-image', prompt: 'x' } });
    expect(json.status).toBe(400);
    const broken = await call(q.gw.url, 'POST', '/v1/images/edits', {
      token: key.raw,
      rawBody: '--xyz\r\nContent-Disposition: form-data; name="model"\r\n\r\nlocal/canvas-image\r\n--xy',
      headers: { 'content-type': 'multipart/form-data; boundary=xyz' },
    });
    expect(broken.status).toBe(400);
    expect(broken.body.error.code).toBe('invalid_request');
  });
});
