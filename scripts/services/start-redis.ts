import fs from 'node:fs/promises';
import path from 'node:path';
import { redisPing } from './redis-ping.js';
import { runOnce } from './run-once.js';
import { spawnService, terminate } from './service-process.js';
import { silentLog, type RunningService, type ServiceLog, type SpawnHook } from './service-types.js';
import { waitUntil } from './wait-until.js';

/** Options for {@link startRedis}. */
export interface StartRedisOptions {
  /** Working folder: the log, and the RDB snapshot when persistent. */
  readonly dataDir: string;
  readonly port: number;
  /** Keep data across restarts (dev mode); tests run without any persistence. */
  readonly persistent: boolean;
  readonly env?: NodeJS.ProcessEnv;
  readonly log?: ServiceLog;
  readonly startTimeoutMs?: number;
  readonly onSpawn?: SpawnHook;
}

/** Starts the Debian `redis-server` on 127.0.0.1 and resolves once it answers PING. */
export async function startRedis(options: StartRedisOptions): Promise<RunningService> {
  const log = options.log ?? silentLog;
  await fs.mkdir(options.dataDir, { recursive: true });
  const proc = spawnService({
    command: 'redis-server',
    args: redisArgs(options),
    logFile: path.join(options.dataDir, 'redis.log'),
    env: options.env,
    name: `redis-server on port ${options.port}`,
    log,
  });
  const url = `redis://127.0.0.1:${options.port}`;
  if (proc.child.pid !== undefined) options.onSpawn?.({ name: 'redis', pid: proc.child.pid, url });
  // SIGTERM makes redis-server save (when persistent) and exit cleanly.
  const stop = runOnce(() => terminate(proc, 'SIGTERM', 10_000));
  try {
    await waitUntil(() => redisPing('127.0.0.1', options.port), {
      what: `redis-server on port ${options.port}`,
      timeoutMs: options.startTimeoutMs ?? 20_000,
      intervalMs: 50,
      abortReason: () => proc.exitReason(),
    });
  } catch (error) {
    await stop();
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`redis-server did not start: ${reason}\n${proc.logTail()}`);
  }
  log(`redis-server ready on 127.0.0.1:${options.port} (${options.persistent ? `data ${options.dataDir}` : 'no persistence'})`);
  return { url, stop };
}

function redisArgs(options: StartRedisOptions): string[] {
  const args = ['--port', String(options.port), '--bind', '127.0.0.1', '--dir', options.dataDir, '--daemonize', 'no'];
  // Snapshots on Redis' default schedule and at shutdown are enough for dev data (all of it can be rebuilt).
  if (options.persistent) return [...args, '--appendonly', 'no', '--dbfilename', 'dump.rdb'];
  return [...args, '--save', '', '--appendonly', 'no'];
}
