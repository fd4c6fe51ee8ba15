import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
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
import { readProcfile, startProcfileProcess, type ProcfileProcess } from './procfile-runner.js';
import { waitFor } from '../../helpers/wait-for.js';

/**
 * A Heroku-style slug: the repository's tracked files, `npm ci`, `npm run build`,
 * `npm prune --omit=dev`, then the Procfile's release, web and worker with a platform's
 * environment: PORT, REDIS_URL (rediss:// with a self-signed certificate) and MONGODB_URI, plus
 * the operator token and the TLS setting Heroku Redis needs.
 */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

function sh(command: string, args: string[], cwd: string, timeoutMs = 600_000): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { cwd, timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${command} ${args.join(' ')} failed: ${err.message}\n${stderr.slice(-4000)}`));
      else resolve(stdout);
    });
  });
}

/** Copies the files git tracks (and new ones it does not ignore), as a platform's build would get them. */
async function copyTrackedFiles(to: string): Promise<void> {
  const listed = await sh('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], ROOT);
  const files = listed.split('\0').filter((file) => file !== '' && file !== 'node_modules' && !file.startsWith('.farebox'));
  for (const file of files) {
    await mkdir(dirname(join(to, file)), { recursive: true });
    await copyFile(join(ROOT, file), join(to, file)).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOENT') throw err; // deleted in the work tree but not yet in git
    });
  }
}

describe('Heroku-style slug: npm ci, build, prune, Procfile processes on TLS Redis', () => {
  let dir: string;
  let redis: PrivateTlsRedis;
  let web: ProcfileProcess;
  let worker: ProcfileProcess;
  let client: OpenAI;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'fbx-slug-'));
    await copyTrackedFiles(dir);
    await sh('npm', ['ci', '--no-audit', '--no-fund'], dir);
    await sh('npm', ['run', 'build'], dir);
    await sh('npm', ['prune', '--omit=dev', '--no-audit', '--no-fund'], dir);
    redis = await privateTlsRedis();
    const port = await freePort();
    const name = uniqueName('slug');
    const env = {
      PORT: String(port),
      REDIS_URL: redis.url,
      MONGODB_URI: testMongoUri(),
      REDIS_TLS_REJECT_UNAUTHORIZED: 'false',
      ADMIN_TOKEN: TEST_ADMIN_TOKEN,
      NODE_ENV: 'production',
      // Isolation from other test files on the shared MongoDB and from each other in Redis.
      MONGODB_DB: name,
      REDIS_PREFIX: name,
    };
    const procfile = await readProcfile(dir);
    const release = startProcfileProcess(dir, procfile.release ?? 'false', env);
    expect(await release.exited, release.output()).toBe(0);
    web = startProcfileProcess(dir, procfile.web ?? 'false', env);
    worker = startProcfileProcess(dir, procfile.worker ?? 'false', env);
    const baseUrl = `http://127.0.0.1:${port}`;
    await waitFor('web /readyz', async () => (await fetch(`${baseUrl}/readyz`)).status === 200, { timeoutMs: 60_000, intervalMs: 200, retryErrors: true, abandonWhen: web.exited, detail: () => web.output() });
    await waitFor('worker started', async () => worker.output().includes('worker started'), { timeoutMs: 60_000, intervalMs: 200, retryErrors: true, abandonWhen: worker.exited, detail: () => worker.output() });
    const admin = adminClient(baseUrl);
    const accountId = await admin.createAccount();
    await admin.topup(accountId, 5);
    client = new OpenAI({ apiKey: (await admin.mintKey(accountId)).raw, baseURL: `${baseUrl}/v1`, maxRetries: 0 });
  }, 900_000);

  afterAll(async () => {
    web?.kill();
    worker?.kill();
    await redis?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('the slug has no dev dependencies', async () => {
    await expect(sh('node', ['-e', "require.resolve('vitest/package.json')"], dir)).rejects.toThrow();
    // typescript is not checked: valibot (under @bull-board/api) names it as an optional peer,
    // so npm keeps it in a production install.
    for (const dev of ['@portkey-ai/gateway', 'playwright-core', 'fast-check']) {
      await expect(sh('node', ['-e', `require.resolve('${dev}/package.json')`], dir)).rejects.toThrow();
    }
  });

  it('answers a chat and a streamed chat', async () => {
    const res = await client.chat.completions.create({ model: 'local/echo', messages: [{ role: 'user', content: 'Hello from a slug' }] });
    expect(res.choices[0]?.message.content).toContain('Hello from a slug');
    const stream = await client.chat.completions.create({ model: 'local/echo', stream: true, messages: [{ role: 'user', content: 'Streamed hello' }] });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    expect(text).toContain('Streamed hello');
  });

  it('generates an image and reads a PDF and a scan through the worker', async () => {
    const images = await client.images.generate({ model: 'local/canvas-image', prompt: 'a lighthouse at dusk', size: '256x128' as '1024x1024' });
    const meta = await sharp(Buffer.from(images.data?.[0]?.b64_json ?? '', 'base64')).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['png', 256, 128]);
    const pdf = await textPdf([['Shipping manifest for Farebox']]);
    const ocr = (document: Record<string, string>) => client.post<{ pages: Array<{ markdown: string }> }>('/ocr', { body: { model: 'local/reader', document } });
    const fromPdf = await ocr({ type: 'document_url', document_url: `data:application/pdf;base64,${pdf.toString('base64')}` });
    expect(fromPdf.pages[0]?.markdown).toContain('Shipping manifest for Farebox');
    const png = await renderTextPng(['INVENTORY CHECK', 'Blue bicycles'], 900, 48);
    const fromScan = await ocr({ type: 'image_url', image_url: `data:image/png;base64,${png.toString('base64')}` });
    expect(fromScan.pages[0]?.markdown).toMatch(/INVENTORY\s+CHECK/);
  }, 120_000);

  it('web and worker drain and exit on SIGTERM within 30 s', async () => {
    const [webStop, workerStop] = await Promise.all([web.terminate(30_000), worker.terminate(30_000)]);
    for (const [stop, proc] of [[webStop, web], [workerStop, worker]] as const) {
      expect(stop, proc.output()).toBe('stopped');
      expect(proc.output()).toContain('shutting down');
      expect(proc.output()).not.toMatch(/shutdown failed|grace period exceeded/);
    }
  }, 60_000);
});
