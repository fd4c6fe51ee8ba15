// First: the runtime sets V8's tiering (see jit-tiering.ts) before any other module's code runs.
import { boot, HttpDrain, onShutdown, returnIdleMemory, STORE_CLOSE_RESERVE_MS, storeShutdownSteps } from '../platform/runtime/index.js';
import { createApp } from './app.js';
import { createDeps } from '../deps.js';
import { createWebServer } from './web-server.js';
import { closeUpstreamAgents } from '../providers/index.js';
import { startTracing, stopTracing } from '../platform/tracing/index.js';

const { config, log } = boot('web');
await startTracing(config.tracing, 'web');
const deps = await createDeps(config, log);
const app = createApp(deps);
const server = createWebServer(deps, app);
const http = new HttpDrain(server);
server.listen({ port: config.port, backlog: config.listenBacklog }, () => log.info({ port: config.port }, 'web listening'));
returnIdleMemory(log, { activity: () => http.started });

onShutdown(log, { graceMs: config.shutdownGraceMs }, () => [
  {
    // Stop accepting, let in-flight requests (streams included) and async jobs finish; what is
    // left is cut (an async job cut is released uncharged and answers 503 to its poller).
    name: 'drain http',
    timeoutMs: Math.max(0, config.shutdownGraceMs - STORE_CLOSE_RESERVE_MS),
    run: async (report) => {
      const within = Math.max(0, config.shutdownGraceMs - STORE_CLOSE_RESERVE_MS - 600);
      const [cut, jobsCut] = await Promise.all([http.drain(within), deps.jobs?.async.drain(within) ?? 0]);
      report.note('streams cut', cut.streamsCut);
      report.note('requests cut', cut.requestsCut);
      report.note('async jobs cut', jobsCut);
    },
    onCut: (report) => report.note('requests cut', http.inFlight),
  },
  ...storeShutdownSteps(deps),
  { name: 'close upstream agents', timeoutMs: 500, run: () => closeUpstreamAgents() },
  { name: 'flush traces', timeoutMs: 1_000, run: () => stopTracing() },
]);
