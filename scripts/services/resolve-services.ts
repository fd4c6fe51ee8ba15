import { dockerAvailable } from './docker-available.js';
import { startLocalServices } from './local-services.js';
import { runOnce } from './run-once.js';
import { startContainerServices } from './testcontainers-services.js';
import {
  silentLog,
  type ResolvedServices,
  type ServiceLog,
  type ServiceNeeds,
  type ServiceSource,
  type SpawnHook,
  type StartedServices,
} from './service-types.js';

/** Options for {@link resolveServices}. */
export interface ResolveServicesOptions {
  /**
   * Environment to read: `REDIS_URL`, `MONGODB_URI`, `DOCKER_HOST`, and `FAREBOX_SERVICES`
   * (`auto` default, `local` to skip Docker, `docker` to require it). Also the base environment
   * of the processes started.
   */
  readonly env: Record<string, string | undefined>;
  /** Persistent data folder (`npm start`); absent means throwaway data (tests). */
  readonly dataDir?: string;
  /** `.farebox` folder for the cached mongod and Wine prefix; defaults to the repo's. */
  readonly home?: string;
  readonly log?: ServiceLog;
  /** Told the pid of each local store process as soon as it is spawned (containers are not). */
  readonly onSpawn?: SpawnHook;
}

/**
 * Finds or starts Redis and MongoDB in the order DESIGN §8 sets: `REDIS_URL` / `MONGODB_URI`
 * when given → testcontainers when a Docker engine answers → local binaries (redis-server,
 * mongod.exe under Wine). Each store is resolved on its own, so a given `REDIS_URL` with no
 * `MONGODB_URI` starts only MongoDB.
 */
export async function resolveServices(options: ResolveServicesOptions): Promise<ResolvedServices> {
  const log = options.log ?? silentLog;
  const givenRedis = nonEmpty(options.env.REDIS_URL);
  const givenMongo = nonEmpty(options.env.MONGODB_URI);
  const needs: ServiceNeeds = { redis: givenRedis === undefined, mongo: givenMongo === undefined };
  if (!needs.redis && !needs.mongo) {
    log('using REDIS_URL and MONGODB_URI from the environment');
    return { redisUrl: givenRedis ?? '', mongoUri: givenMongo ?? '', sources: { redis: 'env', mongo: 'env' }, stop: async () => undefined };
  }
  const backend = await chooseBackend(options.env, log);
  const started: StartedServices =
    backend === 'testcontainers'
      ? await startContainerServices(needs, log)
      : await startLocalServices({ needs, dataDir: options.dataDir, home: options.home, env: options.env, log, onSpawn: options.onSpawn });
  const redisUrl = givenRedis ?? started.redis?.url;
  const mongoUri = givenMongo ?? started.mongo?.url;
  if (redisUrl === undefined || mongoUri === undefined) {
    await started.stop();
    throw new Error('services backend did not return every store it was asked for');
  }
  return {
    redisUrl,
    mongoUri,
    sources: { redis: givenRedis ? 'env' : backend, mongo: givenMongo ? 'env' : backend },
    stop: runOnce(() => started.stop()),
  };
}

async function chooseBackend(env: Record<string, string | undefined>, log: ServiceLog): Promise<Exclude<ServiceSource, 'env'>> {
  const mode = nonEmpty(env.FAREBOX_SERVICES) ?? 'auto';
  if (mode === 'local') return 'local';
  if (mode !== 'auto' && mode !== 'docker') throw new Error(`FAREBOX_SERVICES must be auto, local or docker, got "${mode}"`);
  if (await dockerAvailable(env)) return 'testcontainers';
  if (mode === 'docker') throw new Error('FAREBOX_SERVICES=docker but no Docker engine answered');
  log('no Docker engine answered; using local redis-server and mongod under Wine');
  return 'local';
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}
