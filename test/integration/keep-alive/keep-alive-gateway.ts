import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeOpenAiImages, type FakeOpenAiImages } from '../../fixtures/upstreams/fake-openai-images.js';
import { startFakeMistralOcr, type FakeMistralOcr } from '../../fixtures/upstreams/fake-mistral-ocr.js';
import { startFakeOpenAi, type FakeUpstream } from '../../fixtures/upstreams/fake-openai.js';
import { adminClient, call } from '../../helpers/admin-client.js';
import { startHerokuRouter, type HerokuRouter } from '../../helpers/heroku-router.js';
import { startQueueGateway, type QueueGateway } from '../queue/queue-gateway.js';

/** Every figure of Heroku's router and of the slow fakes, divided by this so the tests run in seconds. */
export const SCALE = 20;

/** A duration of the real world (seconds) as the scaled test's milliseconds. */
export const scaled = (seconds: number): number => Math.round((seconds * 1000) / SCALE);

/** The slow upstreams: each stands for one kind of long wait in the measurements. */
export interface SlowUpstreams {
  /** A chat model that thinks 40 s before its first token and then 70 s more in silence (streams); non-streamed it answers after 40 s. */
  thinker: FakeUpstream;
  /** A non-streamed chat that takes 50 s. */
  slowChat: FakeUpstream;
  /** A 45 s image. */
  image: FakeOpenAiImages;
  /** An image that fails after 40 s. */
  failingImage: FakeOpenAiImages;
  /** A document that takes 120 s. */
  ocr: FakeMistralOcr;
}

/** A queue gateway (in-process web and workers) behind a scaled Heroku router, over slow upstream fakes. */
export interface KeepAliveSetup {
  q: QueueGateway;
  router: HerokuRouter;
  slow: SlowUpstreams;
  /**
   * A funded key whose account has made a chat and an image request: a cold process's first
   * paid request takes about a second (code loaded, mirrors built), which the scaled early
   * commit (1 s) would otherwise count as a slow answer.
   */
  warmKey(usd?: number): Promise<{ accountId: string; raw: string }>;
  close(): Promise<void>;
}

async function startSlowUpstreams(): Promise<SlowUpstreams> {
  const [thinker, slowChat, image, failingImage, ocr] = await Promise.all([startFakeOpenAi(), startFakeOpenAi(), startFakeOpenAiImages(), startFakeOpenAiImages(), startFakeMistralOcr()]);
  thinker.setScenario({ type: 'paced-stream', delayMs: scaled(40), afterFrames: 2, pauseMs: scaled(70) });
  slowChat.setScenario({ type: 'slow-first-byte', delayMs: scaled(50) });
  image.delayMs = scaled(45);
  failingImage.delayMs = scaled(40);
  failingImage.scenario = 'server_error';
  ocr.delayMs = scaled(120);
  return { thinker, slowChat, image, failingImage, ocr };
}

const CHAT_PRICES = { prompt: '0.000001', completion: '0.000002' };

/** Each slow fake behind its own catalog entry. */
const MODELS: ReadonlyArray<[string, Record<string, unknown>]> = [
  ['slow/thinker', { kind: 'chat', provider: 'thinker', upstream_model: 'o3', pricing: CHAT_PRICES, context_length: 100_000 }],
  ['slow/chat', { kind: 'chat', provider: 'slow-chat', upstream_model: 'gpt-4o', pricing: CHAT_PRICES, context_length: 100_000 }],
  ['slow/image', { kind: 'image', provider: 'image', upstream_model: 'dall-e-3', pricing: { image: '0.04' } }],
  ['slow/image-fails', { kind: 'image', provider: 'failing-image', upstream_model: 'dall-e-3', pricing: { image: '0.04' } }],
  ['slow/ocr', { kind: 'ocr', provider: 'ocr', upstream_model: 'mistral-ocr-latest', pricing: { page: '0.001' } }],
];

/**
 * Starts the slow fakes, a gateway whose keep-alive settings and timeouts are the defaults
 * scaled by {@link SCALE} (or `env` over them), and Heroku's router in front of it.
 */
export async function startKeepAliveSetup(env: Record<string, string> = {}): Promise<KeepAliveSetup> {
  const slow = await startSlowUpstreams();
  const dir = await mkdtemp(join(tmpdir(), 'fbx-keep-alive-'));
  const providersFile = join(dir, 'providers.json');
  await writeFile(providersFile, JSON.stringify([
    { id: 'local', kind: 'local' },
    { id: 'thinker', kind: 'openai', base_url: `${slow.thinker.url}/v1`, api_key_env: 'FAKE_KEY' },
    { id: 'slow-chat', kind: 'openai', base_url: `${slow.slowChat.url}/v1`, api_key_env: 'FAKE_KEY' },
    { id: 'image', kind: 'openai-images', base_url: `${slow.image.baseUrl}/v1`, api_key_env: 'FAKE_KEY' },
    { id: 'failing-image', kind: 'openai-images', base_url: `${slow.failingImage.baseUrl}/v1`, api_key_env: 'FAKE_KEY' },
    { id: 'ocr', kind: 'mistral-ocr', base_url: slow.ocr.baseUrl, api_key_env: 'FAKE_KEY' },
  ]));
  const q = await startQueueGateway({
    env: {
      PROVIDERS_FILE: providersFile,
      FAKE_KEY: 'sk-fake-slow-upstream-0000',
      WORKER_CONCURRENCY: '8',
      EARLY_COMMIT_MS: String(scaled(20)),
      STREAM_HEARTBEAT_MS: String(scaled(15)),
      JOB_TIMEOUT_MS: String(scaled(180)),
      UPSTREAM_FIRST_BYTE_TIMEOUT_MS: String(scaled(120)),
      UPSTREAM_IDLE_TIMEOUT_MS: String(scaled(300)),
      ROUTE_QUICK_FAILURE_MS: String(scaled(5)),
      ...env,
    },
  });
  const admin = adminClient(q.gw.url);
  for (const [id, entry] of MODELS) {
    const res = await admin.call('PUT', `/models/${id}`, { name: id, ...entry });
    if (res.status !== 200) throw new Error(`PUT ${id}: ${res.status} ${JSON.stringify(res.body)}`);
  }
  const router = await startHerokuRouter(q.gw.url, { firstByteMs: scaled(30), idleMs: scaled(55) });
  return {
    q,
    router,
    slow,
    async warmKey(usd = 20) {
      const key = await q.fundedKey(usd);
      const paths: Array<[string, Record<string, unknown>]> = [
        ['/v1/chat/completions', { model: 'local/echo', messages: [{ role: 'user', content: 'warm up' }] }],
        ['/v1/images/generations', { model: 'local/canvas-image', prompt: 'warm up', size: '64x64' }],
      ];
      for (const [path, body] of paths) await call(q.gw.url, 'POST', path, { token: key.raw, body });
      return key;
    },
    async close() {
      await router.close();
      await q.close();
      await Promise.all([slow.thinker.close(), slow.slowChat.close(), slow.image.close(), slow.failingImage.close(), slow.ocr.close()]);
      await rm(dir, { recursive: true, force: true });
    },
  };
}
