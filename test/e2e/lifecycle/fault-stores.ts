import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { Redis } from 'ioredis';
import { startLocalServices } from '../../../scripts/services/local-services.js';
import type { StartedServices } from '../../../scripts/services/service-types.js';
import { freePort } from '../../helpers/spawn-web.js';

/** A redis-server of the test's own that can be killed or frozen (half-open: SIGSTOP). */
export interface FaultRedis {
  url: string;
  /** kill -9: connections are refused from now on. */
  kill(): Promise<void>;
  /** SIGSTOP: the kernel still accepts connections, nothing ever answers. */
  freeze(): void;
  /** Gone for good, whatever state it was in. */
  dispose(): Promise<void>;
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

/** Starts a redis-server without persistence on a free port. */
export async function faultRedis(): Promise<FaultRedis> {
  const port = await freePort();
  const url = `redis://127.0.0.1:${port}`;
  const child: ChildProcess = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  const exited = once(child, 'exit');
  const kill = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGKILL');
    await exited;
  };
  await waitPong(url, 10_000);
  return { url, kill, freeze: () => void child.kill('SIGSTOP'), dispose: kill };
}

/** A throwaway mongod (replica set, under Wine here) that the test may stop. */
export async function faultMongo(): Promise<{ url: string; stop: () => Promise<void> }> {
  const started: StartedServices = await startLocalServices({ needs: { redis: false, mongo: true } });
  if (!started.mongo) throw new Error('no mongod started');
  return { url: started.mongo.url, stop: () => started.stop() };
}
