import { Writable } from 'node:stream';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/platform/log/logger.js';
import { createOtelBackend } from '../../../src/platform/tracing/otel-backend.js';
import { inSpan, installTracing } from '../../../src/platform/tracing/tracing.js';
import { WebhookQueue } from '../../../src/webhooks/webhook-queue.js';
import type { WebhookJobData } from '../../../src/webhooks/index.js';
import { testRedisUrl, uniqueName } from '../../setup/test-context.js';

const log = createLogger('silent', new Writable({ write: (_c, _e, done) => done() }));
const memory = new InMemorySpanExporter();
const SETTINGS = { allowLoopback: false, maxAttempts: 3, retryBaseMs: 1_000, timeoutMs: 1_000, sweepMs: 60_000, concurrency: 1 };
let redis: Redis;
let queue: WebhookQueue;

beforeAll(async () => {
  redis = new Redis(testRedisUrl(), { maxRetriesPerRequest: null });
  queue = new WebhookQueue(redis, uniqueName('webhook-trace'), SETTINGS, log);
}, 60_000);
afterAll(async () => {
  installTracing(undefined);
  await queue?.close();
  redis?.disconnect();
});

const data = (id: string): WebhookJobData => ({ delivery_id: id, event_id: `evt_${id}`, endpoint_id: 'wh_1', account_id: 'acct_1', type: 'balance.low', body: '{}' });

describe('the trace context a delivery job carries', () => {
  it('carries none while tracing is off', async () => {
    installTracing(undefined);
    await queue.add(data('whd_off'));
    const job = await queue.raw.getJob('whd_off');
    expect(job?.data.trace).toBeUndefined();
  });

  it('carries the context of the span that queued it when traces are exported, replays included', async () => {
    installTracing(createOtelBackend({ endpoint: 'http://127.0.0.1:1', serviceName: 'farebox', scheduleDelayMs: 100, captureContent: false }, 'web', new SimpleSpanProcessor(memory)));
    await inSpan('ledger.commit', {}, async () => {
      await queue.add(data('whd_on'));
      await queue.add(data('whd_on'), 1);
    });
    const [span] = memory.getFinishedSpans();
    const { traceId, spanId } = span?.spanContext() ?? { traceId: '-', spanId: '-' };
    for (const id of ['whd_on', 'whd_on.r1']) {
      const job = await queue.raw.getJob(id);
      expect(job?.data.trace?.traceparent, id).toBe(`00-${traceId}-${spanId}-01`);
    }
  });
});
