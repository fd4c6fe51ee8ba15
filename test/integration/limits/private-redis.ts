import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { Redis } from 'ioredis';
import { freePort } from '../../helpers/spawn-web.js';

/** A redis-server of the test's own, which it may flush, stop and restart at will. */
export interface PrivateRedis {
  url: string;
  start(): Promise<void>;
  stop(): Promise<void>;
}

async function waitPong(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    probe.on('error', () => undefined);
    try {
      await probe.connect();
      if ((await probe.ping()) === 'PONG') return;
    } catch {
      // not up yet
    } finally {
      probe.disconnect();
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`redis-server at ${url} did not answer`);
}

/** Options of {@link privateRedis}. */
export interface PrivateRedisOptions {
  /**
   * Folder for an RDB snapshot: a restart loads `dump.rdb` from it, as a server restarting
   * from its last snapshot does. Snapshots are taken only when the test runs SAVE.
   */
  rdbDir?: string;
}

/** Creates (and starts) a redis-server on a free port, without persistence unless asked. */
export async function privateRedis(options: PrivateRedisOptions = {}): Promise<PrivateRedis> {
  const port = await freePort();
  const url = `redis://127.0.0.1:${port}`;
  let child: ChildProcess | undefined;
  const handle: PrivateRedis = {
    url,
    async start() {
      const rdb = options.rdbDir ? ['--dir', options.rdbDir, '--dbfilename', 'dump.rdb'] : [];
      child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', ...rdb], { stdio: 'ignore' });
      await waitPong(url, 10_000);
    },
    async stop() {
      const running = child;
      child = undefined;
      if (!running || running.exitCode !== null) return;
      const exited = once(running, 'exit');
      running.kill('SIGKILL');
      await exited;
    },
  };
  await handle.start();
  return handle;
}
