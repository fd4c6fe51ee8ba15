import { createDeps } from '../src/deps.js';
import { boot } from '../src/runtime/boot.js';
import { onShutdown } from '../src/runtime/shutdown.js';
import { startWorkers } from './start-workers.js';

const { config, log } = boot('worker');
const deps = await createDeps(config, log);
const workers = await startWorkers(deps);
log.info({ concurrency: config.workerConcurrency, queues: workers.names }, 'worker started');

onShutdown(log, config.shutdownGraceMs, async () => {
  // Finish or hand back running jobs first, then flush charges and close stores.
  await workers.close();
  await deps.close();
});
