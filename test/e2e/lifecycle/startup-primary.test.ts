import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { connectMongo } from '../../../src/platform/db/mongo.js';
import { prepareDatabase } from '../../../src/store/prepare-database.js';
import { TEST_ADMIN_TOKEN } from '../../helpers/test-gateway.js';
import { uniqueName } from '../../setup/test-context.js';
import { startEntry, webReady, workerReady } from './entry-process.js';
import { faultRedis, restartableMongo } from './fault-stores.js';
import { waitFor } from '../../helpers/wait-for.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const CATALOG = fileURLToPath(new URL('../../../src/catalog/seed-models.json', import.meta.url));

/** Starts the release step; `done` resolves with its exit code. */
function runRelease(env: Record<string, string>): { done: Promise<number | null>; output: () => string } {
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/release.ts'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const done = (once(child, 'exit') as Promise<[number | null]>).then(([code]) => code);
  return { done, output: () => output };
}

describe('startup while MongoDB has no writable primary yet', () => {
  it('web and release wait for the primary to be elected instead of crashing; the worker needs no MongoDB', async () => {
    const [redis, mongo] = await Promise.all([faultRedis(), restartableMongo()]);
    const name = uniqueName('startup');
    const env = {
      NODE_ENV: 'test', LOG_LEVEL: 'info', REDIS_URL: redis.url, MONGODB_URI: mongo.url,
      MONGODB_DB: name, REDIS_PREFIX: name, ADMIN_TOKEN: TEST_ADMIN_TOKEN,
    };
    try {
      const m = await connectMongo(mongo.url, name);
      await prepareDatabase(m.db, CATALOG).finally(() => m.close());
      await mongo.stop();
      // Started while mongod is down; it comes back (and elects itself) only afterwards.
      const waiting = 'waiting for a writable MongoDB primary';
      const release = runRelease(env);
      let webOutput = (): string => '';
      let workerOutput = (): string => '';
      // The ready checks double as taps on the output while the processes are still starting.
      const web = startEntry('src/http/server.ts', env, async (p) => ((webOutput = p.output), webReady(p)));
      const worker = startEntry('workers/main.ts', env, async (p) => ((workerOutput = p.output), workerReady(p)));
      await waitFor('release and web to be waiting for a primary', () => [release.output(), webOutput()].every((o) => o.includes(waiting)), { timeoutMs: 90_000 });
      // Workers keep no money of record, so they start while MongoDB is still down.
      await waitFor('the worker to start without MongoDB', () => workerOutput().includes('"msg":"worker started"'), { timeoutMs: 90_000 });
      expect(workerOutput()).not.toContain(waiting);
      await mongo.start();
      // Settled one by one, so a process that did start is stopped even when another failed.
      const [code, w, k] = await Promise.allSettled([release.done, web, worker]);
      try {
        for (const started of [code, w, k]) if (started.status === 'rejected') throw started.reason;
        expect(code.status === 'fulfilled' && code.value, release.output()).toBe(0);
        expect(release.output()).toContain('release done');
        // /readyz can answer before the line is out: log lines reach the output in gathers.
        const webLog = (): string => (w.status === 'fulfilled' ? w.value.output() : '');
        await waitFor('the web to log that it listens', () => webLog().includes('"msg":"web listening"'), { timeoutMs: 5_000 }).catch(() => undefined);
        expect(webLog()).toContain('"msg":"web listening"');
        expect(k.status === 'fulfilled' && k.value.output()).toContain('"msg":"worker started"');
      } finally {
        await Promise.all([w, k].map((p) => (p.status === 'fulfilled' ? p.value.kill() : undefined)));
      }
    } finally {
      await Promise.all([redis.dispose(), mongo.dispose()]);
    }
  }, 300_000);
});
