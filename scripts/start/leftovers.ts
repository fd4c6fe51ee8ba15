import { requestShutdown } from '../services/mongo-replica-set.js';
import type { OwnerRecord } from './data-lock.js';
import { endProcesses, isRunning } from './process-identity.js';

const STORES = new Set(['redis', 'mongod']);

/**
 * Stops what a dead `npm start` left running, by the pids it recorded: web, worker and release
 * first (they drain into the stores), then Redis (SIGTERM saves its snapshot) and mongod (asked
 * to shut down cleanly, so its data files are flushed). Each is killed if it does not go in time.
 */
export async function stopLeftovers(dead: OwnerRecord, log: (message: string) => void): Promise<void> {
  const running = dead.processes.filter(isRunning);
  if (running.length === 0) return;
  log(`stopping ${running.map((p) => `${p.name} (pid ${p.pid})`).join(', ')}`);
  await endProcesses(running.filter((p) => !STORES.has(p.name)), 15_000);
  const redis = running.filter((p) => p.name === 'redis');
  const mongod = running.filter((p) => p.name === 'mongod');
  await Promise.all([
    endProcesses(redis, 10_000),
    (async () => {
      for (const p of mongod) if (p.url) await requestShutdown(p.url);
      await endProcesses(mongod, 30_000, mongod.every((p) => p.url) ? 'none' : 'SIGTERM');
    })(),
  ]);
}
