import { buildProviderRegistry, closeUpstreamAgents } from '../src/providers/index.js';
import { boot, onShutdown, returnIdleMemory, STORE_CLOSE_RESERVE_MS } from '../src/platform/runtime/index.js';
import { startTracing, stopTracing } from '../src/platform/tracing/index.js';
import { startWorkers } from './start-workers.js';
import { openMongo } from '../src/platform/db/index.js';
import { startWebhookWorker } from './start-webhook-worker.js';
import { JudoscaleReporter } from '../src/queue/index.js';
import { loadCanvas, loadSharp } from '../src/platform/util/index.js';

// Image and OCR jobs need only the configuration, the provider adapters and Redis: jobs carry
// the catalog entry they were admitted with, and the web charges. No ledger or admission.
// MongoDB serves webhook deliveries alone (endpoints, the delivery log), connected lazily so
// a store that is down cannot hold up image and OCR work.
const { config, log } = boot('worker');
await startTracing(config.tracing, 'worker');
// Only the image and OCR adapters are loaded: a worker runs no chat.
const providers = await buildProviderRegistry(config, ['jobs']);
// A web loads the native image libraries on first use; a worker draws and reads, so it loads
// them now rather than in its first job.
await Promise.all([loadSharp(), loadCanvas()]);
const workers = await startWorkers({ config, log, providers });
const mongo = openMongo(config.mongoUri, config.mongoDb);
const webhooks = await startWebhookWorker(config, mongo, log);
// Off unless JUDOSCALE_URL is set (the Judoscale add-on sets it): queue latency for its autoscaler.
const judoscale = JudoscaleReporter.start(config.judoscale, config.redis, config.redisPrefix, log);
log.info({ concurrency: config.workerConcurrency, queues: [...workers.names, 'webhooks'] }, 'worker started');
returnIdleMemory(log, { activity: () => workers.jobs.started });

onShutdown(log, { graceMs: config.shutdownGraceMs }, () => [
  {
    // Stop taking jobs and let running ones finish.
    name: 'finish running jobs',
    timeoutMs: Math.max(0, config.shutdownGraceMs - STORE_CLOSE_RESERVE_MS),
    run: async () => void (await Promise.all([workers.finish(), webhooks.finish()])),
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
  {
    name: 'close queue connections',
    timeoutMs: 1_500,
    run: async () => void (await Promise.all([workers.disconnect(), webhooks.disconnect(), judoscale?.stop()])),
  },
  { name: 'close MongoDB', timeoutMs: 1_000, run: () => mongo.close() },
  { name: 'close upstream agents', timeoutMs: 500, run: () => closeUpstreamAgents() },
  { name: 'flush traces', timeoutMs: 1_000, run: () => stopTracing() },
]);
