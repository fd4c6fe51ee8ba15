import OpenAI, { APIError, toFile } from 'openai';
import sharp from 'sharp';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/platform/log/logger.js';
import { JobQueue } from '../../../src/queue/job-queue.js';
import { solidPng } from '../../fixtures/documents/test-images.js';
import { adminClient } from '../../helpers/admin-client.js';
import { answeredRecorder } from '../../helpers/spec-recorder.js';
import { spawnWeb, type WebProcess } from '../../helpers/spawn-web.js';
import { startTestGateway, testEnv, type TestGateway } from '../../helpers/test-gateway.js';
import { spawnWorker, type WorkerProcess } from './spawn-worker.js';

/** The images response as Farebox sends it: the SDK's type plus `usage.cost`. */
type CostedImages = OpenAI.ImagesResponse & { usage: { cost: number; images: number } };

let setup: TestGateway;
let web: WebProcess;
let worker: WorkerProcess;
let client: OpenAI;
let jobs: JobQueue;

beforeAll(async () => {
  const env = testEnv({ LOG_LEVEL: 'warn', JOB_TIMEOUT_MS: '60000' });
  // The in-process gateway plays the release step (indexes, catalog) and the operator.
  setup = await startTestGateway({ env });
  const admin = adminClient(setup.url);
  const accountId = await admin.createAccount();
  await admin.topup(accountId, 5);
  const { raw } = await admin.mintKey(accountId);
  [web, worker] = await Promise.all([spawnWeb(env), spawnWorker(env)]);
  client = new OpenAI({ apiKey: raw, baseURL: `${web.url}/v1`, maxRetries: 0, fetch: answeredRecorder.fetch });
  jobs = await JobQueue.open(setup.config, createLogger('silent', new Writable({ write: (_c, _e, done) => done() })));
}, 180_000);
afterAll(async () => {
  await jobs?.close();
  await Promise.all([web?.stop(), worker?.stop()]);
  await setup?.close();
});

async function png(b64: string | undefined): Promise<{ format?: string; width?: number; height?: number }> {
  const meta = await sharp(Buffer.from(b64 ?? '', 'base64')).metadata();
  return { format: meta.format, width: meta.width, height: meta.height };
}

async function apiError(promise: Promise<unknown>): Promise<APIError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof APIError) return err;
    throw err;
  }
  throw new Error('expected an API error');
}

describe('images through web and worker processes, with the official openai client', () => {
  it('images.generate renders a PNG of the requested size and reports its cost', async () => {
    const res = (await client.images.generate({ model: 'local/canvas-image', prompt: 'a lighthouse at dusk', size: '256x128' as '1024x1024' })) as CostedImages;
    expect(res.data).toHaveLength(1);
    expect(await png(res.data?.[0]?.b64_json)).toEqual({ format: 'png', width: 256, height: 128 });
    expect(res.usage.cost).toBe(0.002);
  });

  it('images.edit with one file and with several files', async () => {
    const red = await toFile(await solidPng(40, 40, { r: 220, g: 0, b: 0 }), 'red.png', { type: 'image/png' });
    const one = (await client.images.edit({ model: 'local/canvas-image', prompt: 'frame it', image: red, size: '128x128' as '1024x1024' })) as CostedImages;
    expect(await png(one.data?.[0]?.b64_json)).toEqual({ format: 'png', width: 128, height: 128 });

    const files = await Promise.all(
      [{ r: 0, g: 200, b: 0 }, { r: 0, g: 0, b: 200 }, { r: 200, g: 200, b: 0 }].map(async (rgb, i) =>
        toFile(await solidPng(32, 32, rgb), `ref-${i}.png`, { type: 'image/png' }),
      ),
    );
    const several = (await client.images.edit({ model: 'local/canvas-image', prompt: 'collage', image: files, n: 2, size: '96x96' as '1024x1024' })) as CostedImages;
    expect(several.data).toHaveLength(2);
    expect(await png(several.data?.[1]?.b64_json)).toEqual({ format: 'png', width: 96, height: 96 });
    expect(several.usage.cost).toBe(0.004);
  });

  it('a 9 MB upload is refused with 413 naming image[], and nothing is enqueued', async () => {
    const before = await jobs.queue('images').getJobCounts('waiting', 'active', 'delayed', 'completed', 'failed');
    const small = await toFile(await solidPng(8, 8, { r: 1, g: 1, b: 1 }), 'small.png', { type: 'image/png' });
    const huge = await toFile(Buffer.alloc(9 * 1024 * 1024, 1), 'huge.png', { type: 'image/png' });
    const err = await apiError(client.images.edit({ model: 'local/canvas-image', prompt: 'x', image: [small, huge] }));
    expect(err.status).toBe(413);
    expect(err.code).toBe('payload_too_large');
    expect(err.param).toBe('image[]');
    expect(await jobs.queue('images').getJob(err.headers?.get('x-service-request-id') ?? 'none')).toBeUndefined();
    expect(await jobs.queue('images').getJobCounts('waiting', 'active', 'delayed', 'completed', 'failed')).toEqual(before);
  });

  it('an edit on a model without REFERENCES is a 400', async () => {
    const file = await toFile(await solidPng(8, 8, { r: 1, g: 1, b: 1 }), 'a.png', { type: 'image/png' });
    const err = await apiError(client.images.edit({ model: 'local/instant-image', prompt: 'x', image: file }));
    expect([err.status, err.code, err.param]).toEqual([400, 'model_capability_missing', 'model']);
  });

  it('response_format url is a 400 naming the parameter', async () => {
    const err = await apiError(client.images.generate({ model: 'local/canvas-image', prompt: 'x', response_format: 'url' }));
    expect([err.status, err.code, err.param]).toEqual([400, 'unsupported_response_format', 'response_format']);
  });
});
