import { createServer } from 'node:http';
import { createApp } from './app.js';
import { createDeps } from './deps.js';
import { answerClientErrors, EDGE_SERVER_OPTIONS } from './http/edge/client-errors.js';
import { queuedRouters } from './http/routes/images/queued-routers.js';
import { closeUpstreamAgents } from './providers/http/upstream-client.js';
import { JobQueue } from './queue/job-queue.js';
import { boot } from './runtime/boot.js';
import { onShutdown } from './runtime/shutdown.js';

const { config, log } = boot('web');
const deps = await createDeps(config, log);
const jobs = await JobQueue.open(config, log);
const app = createApp(deps, { routers: queuedRouters(deps, jobs) });
const server = createServer(EDGE_SERVER_OPTIONS, app.callback());
answerClientErrors(server, log);
server.keepAliveTimeout = 65_000;
server.listen(config.port, () => log.info({ port: config.port }, 'web listening'));

onShutdown(log, config.shutdownGraceMs, async () => {
  // Stop accepting, let in-flight requests (streams included) finish, then close stores.
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
  });
  await jobs.close();
  await deps.close();
  await closeUpstreamAgents();
});
