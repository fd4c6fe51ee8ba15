import type { ChildProcess } from 'node:child_process';
import { Redis, type RedisOptions } from 'ioredis';

/** Options of {@link waitRedisPong}. */
export interface WaitRedisOptions {
  timeoutMs?: number;
  /** Extra client options (e.g. `tls` for a `rediss://` server). */
  client?: RedisOptions;
  /** The server process: waiting stops at once when it has exited. */
  child?: ChildProcess;
}

/** Waits until a freshly started redis-server answers PING, probing with short-lived clients. */
export async function waitRedisPong(url: string, options: WaitRedisOptions = {}): Promise<void> {
  const deadline = Date.now() + (options.timeoutMs ?? 10_000);
  while (Date.now() < deadline) {
    if (options.child && options.child.exitCode !== null) throw new Error(`redis-server at ${url} exited (${options.child.exitCode})`);
    const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, ...options.client });
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
