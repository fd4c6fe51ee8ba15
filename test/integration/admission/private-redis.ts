import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { freePort } from '../../helpers/spawn-web.js';
import { waitRedisPong } from '../../helpers/wait-redis.js';

/** A redis-server of the test's own, which it may flush, stop and restart at will. */
export interface PrivateRedis {
  url: string;
  start(): Promise<void>;
  stop(): Promise<void>;
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
      // A second server on the same port would fail to bind, and the first would be orphaned.
      if (child && child.exitCode === null && child.signalCode === null) throw new Error(`redis-server on port ${port} is already running`);
      const rdb = options.rdbDir ? ['--dir', options.rdbDir, '--dbfilename', 'dump.rdb'] : [];
      child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', ...rdb], { stdio: 'ignore' });
      await waitRedisPong(url);
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
