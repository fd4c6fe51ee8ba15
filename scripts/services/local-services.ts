import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fareboxHome, mongodBinDir, winePrefixDir } from './farebox-paths.js';
import { choosePort, findFreePort } from './free-port.js';
import { provisionMongod } from './provision-mongod.js';
import { runOnce } from './run-once.js';
import { startBoth } from './start-both.js';
import { startMongod } from './start-mongod.js';
import { startRedis } from './start-redis.js';
import { silentLog, type ServiceLog, type ServiceNeeds, type SpawnHook, type StartedServices } from './service-types.js';

/** Ports `npm start` prefers, chosen to stay clear of a system Redis/MongoDB on the usual ports. */
export const DEV_REDIS_PORT = 6380;
export const DEV_MONGO_PORT = 27018;

/** Options for {@link startLocalServices}. */
export interface LocalServicesOptions {
  readonly needs: ServiceNeeds;
  /** Persistent data folder (dev). Absent: throwaway folders in the OS temp dir, free ports. */
  readonly dataDir?: string;
  /** `.farebox` folder holding the mongod binary and Wine prefix; defaults to the repo's. */
  readonly home?: string;
  readonly env?: NodeJS.ProcessEnv;
  readonly log?: ServiceLog;
  /** Told each store's pid as soon as it is spawned. */
  readonly onSpawn?: SpawnHook;
}

/**
 * Starts `redis-server` and mongod-under-Wine from local binaries. Throwaway runs get fresh temp
 * folders and OS-assigned ports, so several test runs can share a machine; dev runs keep their
 * data and prefer fixed ports, moving to free ones when those are taken.
 */
export async function startLocalServices(options: LocalServicesOptions): Promise<StartedServices> {
  const log = options.log ?? silentLog;
  const home = options.home ?? fareboxHome();
  const baseDir = options.dataDir ?? (await fs.mkdtemp(path.join(os.tmpdir(), 'farebox-services-')));
  const persistent = options.dataDir !== undefined;
  try {
    const binary = options.needs.mongo ? await provisionMongod({ binDir: mongodBinDir(home), env: options.env, log }) : '';
    const [redisPort, mongoPort] = await pickPorts(persistent);
    const started = await startBoth({
      redis: options.needs.redis
        ? () => startRedis({ dataDir: path.join(baseDir, 'redis'), port: redisPort, persistent, env: options.env, log, onSpawn: options.onSpawn })
        : undefined,
      mongo: options.needs.mongo
        ? () => startMongod({ binary, winePrefix: winePrefixDir(home), dataDir: path.join(baseDir, 'mongo'), port: mongoPort, env: options.env, log, onSpawn: options.onSpawn })
        : undefined,
    });
    return persistent ? started : withCleanup(started, baseDir);
  } catch (error) {
    if (!persistent) await fs.rm(baseDir, { recursive: true, force: true });
    throw error;
  }
}

async function pickPorts(persistent: boolean): Promise<[number, number]> {
  const redisPort = await choosePort(persistent ? DEV_REDIS_PORT : undefined);
  let mongoPort = await choosePort(persistent ? DEV_MONGO_PORT : undefined);
  // Two port-0 probes can, rarely, hand back the same number once the first socket is closed.
  while (mongoPort === redisPort) mongoPort = await findFreePort();
  return [redisPort, mongoPort];
}

/** Stops the services, then deletes their throwaway folder (only once both have let go of it). */
function withCleanup(started: StartedServices, baseDir: string): StartedServices {
  const stop = runOnce(async () => {
    await started.stop();
    await fs.rm(baseDir, { recursive: true, force: true });
  });
  return { redis: started.redis, mongo: started.mongo, stop };
}
