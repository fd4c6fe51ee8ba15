import type { TestProject } from 'vitest/node';
import { resolveServices } from '../../scripts/services/resolve-services.js';
import { MONGO_URI_ENV, MONGO_URI_KEY, REDIS_URL_ENV, REDIS_URL_KEY } from './provided-context.js';

/**
 * Vitest global setup: one Redis and one MongoDB for the whole run, with throwaway data, found
 * or started as DESIGN §8 orders it. Test files isolate themselves with unique names
 * (see test-context.ts). Returns the teardown, which stops whatever was started.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const started = Date.now();
  const log = (message: string): void => console.log(`[services] ${message}`);
  const services = await resolveServices({ env: process.env, log });
  log(`ready in ${((Date.now() - started) / 1000).toFixed(1)} s (redis: ${services.sources.redis}, mongo: ${services.sources.mongo})`);
  project.provide(REDIS_URL_KEY, services.redisUrl);
  project.provide(MONGO_URI_KEY, services.mongoUri);
  // Test workers and the processes e2e tests spawn inherit these.
  process.env[REDIS_URL_ENV] = services.redisUrl;
  process.env[MONGO_URI_ENV] = services.mongoUri;
  return async () => {
    await services.stop();
    log('stopped');
  };
}
