import { execFile } from 'node:child_process';
import OpenAI from 'openai';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderTextPng } from '../../fixtures/documents/test-images.js';
import { textPdf } from '../../fixtures/documents/test-pdfs.js';
import { adminClient } from '../../helpers/admin-client.js';
import { freePort } from '../../helpers/spawn-web.js';
import { TEST_ADMIN_TOKEN } from '../../helpers/test-gateway.js';
import { testMongoUri, uniqueName } from '../../setup/test-context.js';
import { privateTlsRedis, type PrivateTlsRedis } from './private-tls-redis.js';
import { waitFor } from '../../helpers/wait-for.js';

/**
 * The built image against real stores, the way a platform runs it: release once, then web and
 * worker, each a container of the same image on the host network, with Redis over TLS and a
 * self-signed certificate. Opt-in, because it needs a Docker engine and a built image:
 *   FAREBOX_DOCKER_IMAGE=farebox:local npx vitest run test/integration/deploy/docker-image.test.ts
 */
const image = process.env.FAREBOX_DOCKER_IMAGE;

function docker(args: string[], timeoutMs = 120_000): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile('docker', args, { timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
      resolve({ code, out: `${stdout}${stderr}`.trim() });
    });
  });
}

describe.skipIf(!image)('the Docker image serves requests (FAREBOX_DOCKER_IMAGE)', () => {
  const name = uniqueName('img');
  const containers = { web: `${name}-web`, worker: `${name}-worker` };
  let redis: PrivateTlsRedis;
  let baseUrl: string;
  let env: string[];
  let client: OpenAI;

  const run = (extra: string[], command: string[]) =>
    docker(['run', '--network', 'host', '--read-only', '--tmpfs', '/tmp', ...env, ...extra, image ?? '', ...command], 300_000);

  beforeAll(async () => {
    redis = await privateTlsRedis();
    const port = await freePort();
    baseUrl = `http://127.0.0.1:${port}`;
    const vars = {
      NODE_ENV: 'production', PORT: String(port), REDIS_URL: redis.url, REDIS_TLS_REJECT_UNAUTHORIZED: 'false',
      MONGODB_URI: testMongoUri(), MONGODB_DB: name, REDIS_PREFIX: name, ADMIN_TOKEN: TEST_ADMIN_TOKEN, LOG_LEVEL: 'warn',
    };
    env = Object.entries(vars).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
    const release = await run(['--rm'], ['node', 'dist/scripts/release.js']);
    expect(release.code, release.out).toBe(0);
    for (const [role, container] of Object.entries(containers)) {
      const started = await run(['-d', '--name', container], role === 'web' ? [] : ['node', 'dist/workers/main.js']);
      expect(started.code, started.out).toBe(0);
    }
    await waitFor('web /readyz', async () => (await fetch(`${baseUrl}/readyz`)).status === 200, { timeoutMs: 60_000, intervalMs: 500, retryErrors: true });
    const admin = adminClient(baseUrl);
    const accountId = await admin.createAccount();
    await admin.topup(accountId, 5);
    const { raw } = await admin.mintKey(accountId);
    client = new OpenAI({ apiKey: raw, baseURL: `${baseUrl}/v1`, maxRetries: 0 });
  }, 420_000);

  afterAll(async () => {
    await docker(['rm', '-f', containers.web, containers.worker]);
    await redis?.stop();
  });

  it('runs as a non-root user', async () => {
    const user = await docker(['exec', containers.web, 'id', '-u']);
    expect(user.code, user.out).toBe(0);
    expect(user.out).not.toBe('0');
  });

  it('answers a chat and a streamed chat', async () => {
    const res = await client.chat.completions.create({ model: 'local/echo', messages: [{ role: 'user', content: 'Hello from a container' }] });
    expect(res.choices[0]?.message.content).toContain('Hello from a container');
    const stream = await client.chat.completions.create({ model: 'local/echo', stream: true, messages: [{ role: 'user', content: 'Streamed hello' }] });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    expect(text).toContain('Streamed hello');
  });

  it('generates an image and reads a PDF through the worker container', async () => {
    const images = await client.images.generate({ model: 'local/canvas-image', prompt: 'a lighthouse at dusk', size: '256x128' as '1024x1024' });
    const meta = await sharp(Buffer.from(images.data?.[0]?.b64_json ?? '', 'base64')).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['png', 256, 128]);
    const pdf = await textPdf([['Shipping manifest for Farebox']]);
    const document = { type: 'document_url', document_url: `data:application/pdf;base64,${pdf.toString('base64')}` };
    const ocr = await client.post<{ pages: Array<{ markdown: string }> }>('/ocr', { body: { model: 'local/reader', document } });
    expect(ocr.pages[0]?.markdown).toContain('Shipping manifest for Farebox');
    // A scan has no text layer: tesseract (WASM, bundled language data) reads it in the container.
    const png = await renderTextPng(['INVENTORY CHECK', 'Blue bicycles'], 900, 48);
    const scan = { type: 'image_url', image_url: `data:image/png;base64,${png.toString('base64')}` };
    const read = await client.post<{ pages: Array<{ markdown: string }> }>('/ocr', { body: { model: 'local/reader', document: scan } });
    expect(read.pages[0]?.markdown).toMatch(/INVENTORY\s+CHECK/);
  }, 120_000);

  it('reports healthy through its HEALTHCHECK', async () => {
    const status = await waitFor('healthy', async () => {
      const inspect = await docker(['inspect', '-f', '{{.State.Health.Status}}', containers.web]);
      return inspect.out === 'healthy' ? inspect.out : undefined;
    }, { timeoutMs: 90_000, intervalMs: 500, retryErrors: true });
    expect(status).toBe('healthy');
  }, 120_000);

  it('web and worker stop cleanly on SIGTERM within 30 s', async () => {
    const stopped = await docker(['stop', '--time', '30', containers.web, containers.worker], 90_000);
    expect(stopped.code, stopped.out).toBe(0);
    for (const container of Object.values(containers)) {
      const exit = await docker(['inspect', '-f', '{{.State.ExitCode}}', container]);
      expect(exit.out, container).toBe('0');
    }
  }, 120_000);
});
