import { findCharge } from '../../../src/ledger/ledger-writer.js';
import type { JobQueue } from '../../../src/queue/job-queue.js';
import type { QueuedServiceDeps } from '../../../src/queue/queued-service-deps.js';
import type { LedgerDoc } from '../../../src/ledger/ledger-types.js';
import { startWorkers, type RunningWorkers } from '../../../workers/start-workers.js';
import { adminClient } from '../../helpers/admin-client.js';
import { startTestGateway, testEnv, type TestGateway } from '../../helpers/test-gateway.js';

/** An in-process gateway with the queue routes, and (optionally) in-process workers. */
export interface QueueGateway {
  gw: TestGateway;
  jobs: JobQueue;
  workers: RunningWorkers | undefined;
  /** A funded inference key. */
  fundedKey(usd?: number): Promise<{ accountId: string; raw: string }>;
  charge(requestId: string): Promise<LedgerDoc | null>;
  close(): Promise<void>;
}

/** Options of {@link startQueueGateway}. */
export interface QueueGatewayOptions {
  env?: Record<string, string>;
  /** Start in-process workers (default true). */
  workers?: boolean;
  documentFetch?: QueuedServiceDeps['documentFetch'];
}

/** Starts the gateway with the images and OCR routes over a fresh database and Redis prefix. */
export async function startQueueGateway(options: QueueGatewayOptions = {}): Promise<QueueGateway> {
  const env = testEnv({ LOG_LEVEL: 'warn', ...options.env });
  const gw = await startTestGateway({
    env,
    jobs: { pollMs: 200 },
    extensions: () => (options.documentFetch ? { documentFetch: options.documentFetch } : {}),
  });
  const { jobs } = gw.deps;
  if (jobs === undefined) throw new Error('the queue gateway opened no job queue');
  const workers = options.workers === false ? undefined : await startWorkers(gw.deps);
  const admin = adminClient(gw.url);
  return {
    gw,
    jobs,
    workers,
    async fundedKey(usd = 10) {
      const accountId = await admin.createAccount('queue');
      await admin.topup(accountId, usd);
      const key = await admin.mintKey(accountId);
      return { accountId, raw: key.raw };
    },
    charge: (requestId) => findCharge(gw.deps.c, requestId),
    async close() {
      await workers?.close();
      await gw.close();
    },
  };
}
