import type { ChildProcess } from 'node:child_process';
import { Redis, type RedisOptions } from 'ioredis';
import { waitFor } from './wait-for.js';

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
  await waitFor(`redis-server at ${url} to answer PING`, async () => {
    if (options.child && options.child.exitCode !== null) throw new Error(`redis-server at ${url} exited (${options.child.exitCode})`);
    const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, ...options.client });
    probe.on('error', () => undefined);
    try {
      await probe.connect();
      return (await probe.ping()) === 'PONG';
    } catch {
      return false; // not up yet
    } finally {
      probe.disconnect();
    }
  }, { timeoutMs: options.timeoutMs ?? 10_000 });
}
