import fs from 'node:fs/promises';
import path from 'node:path';
import { runOnce } from './run-once.js';
import { ensureReplicaSetPrimary, REPLICA_SET, requestShutdown } from './mongo-replica-set.js';
import { spawnService, terminate, waitForExit, type ServiceProcess } from './service-process.js';
import { silentLog, type RunningService, type ServiceLog, type SpawnHook } from './service-types.js';
import { ensureWinePrefix, toWinePath, waitForWineserverExit, wineEnv } from './wine-prefix.js';
import { programsInPrefix } from './wine-programs.js';

/** Options for {@link startMongod}. */
export interface StartMongodOptions {
  /** Verified `mongod.exe` (see provisionMongod). */
  readonly binary: string;
  /** Wine prefix; created on first use. */
  readonly winePrefix: string;
  /** Folder for this instance: `db/` and `mongod.log` go inside. */
  readonly dataDir: string;
  readonly port: number;
  /** Base environment for Wine (PATH, HOME…). */
  readonly env?: NodeJS.ProcessEnv;
  readonly log?: ServiceLog;
  /** Bound on start, including a first-time Wine prefix; default 180 s. */
  readonly startTimeoutMs?: number;
  readonly onSpawn?: SpawnHook;
}

/**
 * Starts the Windows build of mongod under Wine as a one-node replica set (so transactions work)
 * and resolves once it is a writable primary. The URL uses `directConnection=true`, which keeps
 * working when the member host recorded in the set differs from how the client reaches it.
 */
export async function startMongod(options: StartMongodOptions): Promise<RunningService> {
  const log = options.log ?? silentLog;
  await ensureWinePrefix(options.winePrefix, options.env, log);
  const dbDir = path.join(options.dataDir, 'db');
  await fs.mkdir(dbDir, { recursive: true });
  const url = `mongodb://127.0.0.1:${options.port}/?directConnection=true`;
  const proc = spawnService({
    command: 'wine',
    args: mongodArgs(options.binary, dbDir, options.port),
    logFile: path.join(options.dataDir, 'mongod.log'),
    env: wineEnv(options.winePrefix, options.env),
    name: `mongod on port ${options.port}`,
    log,
  });
  if (proc.child.pid !== undefined) options.onSpawn?.({ name: 'mongod', pid: proc.child.pid, url });
  const stop = runOnce(() => stopMongod(proc, url, options));
  try {
    await ensureReplicaSetPrimary({
      uri: url,
      memberHost: `127.0.0.1:${options.port}`,
      timeoutMs: options.startTimeoutMs ?? 180_000,
      abortReason: () => proc.exitReason(),
    });
  } catch (error) {
    await stop();
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`mongod on port ${options.port} did not start: ${reason}\n${proc.logTail()}`);
  }
  log(`mongod ready on 127.0.0.1:${options.port} (replica set ${REPLICA_SET}, data ${options.dataDir})`);
  return { url, stop };
}

function mongodArgs(binary: string, dbDir: string, port: number): string[] {
  return [
    binary,
    '--dbpath', toWinePath(dbDir),
    '--port', String(port),
    '--bind_ip', '127.0.0.1',
    '--replSet', REPLICA_SET,
    // Full-time diagnostic data capture crashes mongod under Wine.
    '--setParameter', 'diagnosticDataCollectionEnabled=false',
  ];
}

/**
 * Clean shutdown first (flushes the data files), a kill only as the fallback; then, when no other
 * program uses the prefix, wait for its wineserver so no Wine helper outlives us. With another
 * mongod in the prefix the helpers stay for it, and waiting would only run out the bound.
 */
async function stopMongod(proc: ServiceProcess, url: string, options: StartMongodOptions): Promise<void> {
  proc.markStopping();
  if (proc.exitReason() === undefined) {
    await requestShutdown(url);
    if (!(await waitForExit(proc, 30_000))) await terminate(proc, 'SIGKILL', 5_000);
  }
  if ((await programsInPrefix(options.winePrefix)).length === 0) await waitForWineserverExit(options.winePrefix, options.env);
}
