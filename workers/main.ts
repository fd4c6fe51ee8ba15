import { createDeps } from '../src/deps.js';
import { boot } from '../src/runtime/boot.js';
import { onShutdown } from '../src/runtime/shutdown.js';
import { STORE_CLOSE_RESERVE_MS, storeShutdownSteps } from '../src/runtime/store-steps.js';
import { startWorkers } from './start-workers.js';

const { config, log } = boot('worker');
const deps = await createDeps(config, log);
const workers = await startWorkers(deps);
log.info({ concurrency: config.workerConcurrency, queues: workers.names }, 'worker started');

onShutdown(log, { graceMs: config.shutdownGraceMs }, () => [
  {
    // Stop taking jobs and let running ones finish (their charges go into the ledger writer).
    name: 'finish running jobs',
    timeoutMs: Math.max(0, config.shutdownGraceMs - STORE_CLOSE_RESERVE_MS),
    run: () => workers.finish(),
  },
  {
    // Whatever still runs goes back to the queue now rather than when its lock expires.
    name: 'return unfinished jobs',
    timeoutMs: 1_500,
    run: async (report) => {
      const { returned, stalled } = await workers.jobs.returnAll(1_000);
      report.note('jobs returned to the queue', returned);
      report.note('jobs left to stall recovery', stalled);
    },
    onCut: (report) => report.note('jobs left to stall recovery', workers.jobs.size),
  },
  { name: 'close queue connections', timeoutMs: 1_500, run: () => workers.disconnect() },
  ...storeShutdownSteps(deps),
]);
