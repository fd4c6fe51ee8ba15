import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { createApp, type AppExtensions } from '../../src/http/app.js';
import { createWebServer } from '../../src/http/web-server.js';
import type { Clock } from '../../src/billing/periods.js';
import { loadConfig, type Config } from '../../src/platform/config/config.js';
import { prepareDatabase as prepareSchema } from '../../src/store/prepare-database.js';
import { createDeps, type BuiltDeps } from '../../src/deps.js';
import type { JobQueueOptions } from '../../src/queue/job-queue.js';
import { createLogger } from '../../src/platform/log/logger.js';
import { testMongoUri, testRedisUrl, uniqueName } from '../setup/test-context.js';

/** The operator token every test gateway uses. */
export const TEST_ADMIN_TOKEN = 'test-admin-token-0123456789';

/** A gateway running in this process on an ephemeral port, with a fresh database. */
export interface TestGateway {
  url: string;
  deps: BuiltDeps;
  config: Config;
  /** Everything the gateway logged, for secret-leak checks. */
  logs: () => string;
  close(): Promise<void>;
}

/** Environment for a gateway with its own database and Redis prefix. */
export function testEnv(extra: Record<string, string> = {}): Record<string, string> {
  const name = uniqueName('fbx');
  return {
    NODE_ENV: 'test',
    REDIS_URL: testRedisUrl(),
    MONGODB_URI: testMongoUri(),
    MONGODB_DB: name,
    REDIS_PREFIX: name,
    ADMIN_TOKEN: TEST_ADMIN_TOKEN,
    LOG_LEVEL: 'info',
    // Spool files of throwaway databases belong in the OS temp folder, not the repo's.
    CHARGE_SPOOL_DIR: join(tmpdir(), 'farebox-test-spool'),
    // The money suites run once per ledger acknowledgement mode (see package.json's test script).
    LEDGER_ACK: process.env.LEDGER_ACK ?? 'commit',
    // And the admission suites once per admission path (see package.json's test script).
    ADMISSION: process.env.ADMISSION ?? 'leased',
    // Tests share two busy cores with the stores and each other on purpose, so the event loop
    // of a test process is often late; load shedding on that delay is tested where it is meant.
    SHED_EVENT_LOOP_DELAY_MS: '0',
    SHED_EVENT_LOOP_BUSY_PERCENT: '0',
    ...extra,
  };
}

/** Runs what the release step runs: indexes and the seed catalog. */
export async function prepareDatabase(deps: BuiltDeps): Promise<void> {
  await prepareSchema(deps.mongo.db, deps.config.catalogFile, { requestRecordRetentionDays: deps.config.requestRecordRetentionDays });
  await deps.catalog.reload();
}

/** Starts an in-process gateway. */
export async function startTestGateway(
  options: {
    env?: Record<string, string>;
    clock?: Clock;
    /** Opens the job queue with these settings (images and OCR routes); none by default. */
    jobs?: JobQueueOptions;
    extensions?: (deps: BuiltDeps) => AppExtensions;
  } = {},
): Promise<TestGateway> {
  const config = loadConfig(options.env ?? testEnv());
  let captured = '';
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      captured += chunk.toString('utf8');
      done();
    },
  });
  const log = createLogger(config.logLevel, sink);
  const deps = await createDeps(config, log, { clock: options.clock, jobs: options.jobs ?? false });
  await prepareDatabase(deps);
  const app = createApp(deps, options.extensions?.(deps));
  const server: Server = createWebServer(deps, app);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    deps,
    config,
    logs: () => captured,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await deps.mongo.db.dropDatabase().catch(() => undefined);
      await deps.close();
    },
  };
}
