import type { StartedTestContainer } from 'testcontainers';
import { ensureReplicaSetPrimary } from './mongo-replica-set.js';
import { runOnce } from './run-once.js';
import { startBoth } from './start-both.js';
import { silentLog, type RunningService, type ServiceLog, type ServiceNeeds, type StartedServices } from './service-types.js';

const MONGO_PORT = 27017;
const REDIS_PORT = 6379;

/**
 * Starts `redis:7` and/or `mongo:7` (one-node replica set) with testcontainers. The package is a
 * dev dependency and is imported only here, only once a Docker engine answered, so a production
 * install without dev dependencies never loads it. Containers are removed on stop, and by the
 * testcontainers reaper if this process dies first.
 */
export async function startContainerServices(needs: ServiceNeeds, log: ServiceLog = silentLog): Promise<StartedServices> {
  log(`starting ${[needs.redis && 'redis:7', needs.mongo && 'mongo:7'].filter(Boolean).join(' and ')} with testcontainers`);
  return startBoth({
    redis: needs.redis ? startRedisContainer : undefined,
    mongo: needs.mongo ? startMongoContainer : undefined,
  });
}

async function startRedisContainer(): Promise<RunningService> {
  const { GenericContainer, Wait } = await import('testcontainers');
  const container = await new GenericContainer('redis:7')
    .withExposedPorts(REDIS_PORT)
    .withWaitStrategy(Wait.forLogMessage('Ready to accept connections'))
    .start();
  return asService(container, `redis://${container.getHost()}:${container.getMappedPort(REDIS_PORT)}`);
}

async function startMongoContainer(): Promise<RunningService> {
  const { GenericContainer, Wait } = await import('testcontainers');
  const container = await new GenericContainer('mongo:7')
    .withCommand(['--replSet', 'rs0', '--bind_ip_all'])
    .withExposedPorts(MONGO_PORT)
    .withWaitStrategy(Wait.forLogMessage(/Waiting for connections/))
    .start();
  const service = asService(container, `mongodb://${container.getHost()}:${container.getMappedPort(MONGO_PORT)}/?directConnection=true`);
  try {
    // The member host is how mongod reaches itself inside its container; clients connect directly.
    await ensureReplicaSetPrimary({ uri: service.url, memberHost: `127.0.0.1:${MONGO_PORT}`, timeoutMs: 60_000 });
  } catch (error) {
    await service.stop();
    throw error;
  }
  return service;
}

function asService(container: StartedTestContainer, url: string): RunningService {
  return { url, stop: runOnce(async () => void (await container.stop())) };
}
