import { Writable } from 'node:stream';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/platform/log/logger.js';
import { PayloadStore } from '../../../src/queue/payload-store.js';
import { loadBlob, type ProcessorContext } from '../../../workers/processors/job-runner.js';
import { testRedisUrl, uniqueName } from '../../setup/test-context.js';

let redis: Redis;
let ctx: ProcessorContext;
const ref = { name: 'document', filename: 'scan.png', contentType: 'image/png', bytes: 3 };

beforeAll(() => {
  redis = new Redis(testRedisUrl());
  const log = createLogger('silent', new Writable({ write: (_c, _e, done) => done() }));
  ctx = { store: new PayloadStore(redis, uniqueName('inputs')), providers: { images: () => undefined, ocr: () => undefined } as never, log };
});
afterAll(() => redis?.disconnect());

describe('a job reading its stored input', () => {
  it('gets the bytes the web stored', async () => {
    const requestId = uniqueName('req');
    await ctx.store.putInputs(requestId, [{ name: 'document', data: Buffer.from('abc') }], 60_000);
    const file = await loadBlob(ctx, { requestId, deadline: Date.now() + 60_000 }, ref);
    expect([file.data.toString(), file.filename, file.contentType]).toEqual(['abc', 'scan.png', 'image/png']);
  });

  it('answers 503 with Retry-After when the input is gone before the deadline (lost in a Redis failover)', async () => {
    const failure = await loadBlob(ctx, { requestId: uniqueName('req'), deadline: Date.now() + 60_000 }, ref).catch((err: unknown) => err);
    expect(failure).toMatchObject({ error: { code: 'service_unavailable', status: 503, retryAfterSeconds: 1 } });
  });

  it('answers 504 when the input is gone after the deadline (the request expired)', async () => {
    const failure = await loadBlob(ctx, { requestId: uniqueName('req'), deadline: Date.now() - 1 }, ref).catch((err: unknown) => err);
    expect(failure).toMatchObject({ error: { code: 'upstream_timeout', status: 504 } });
  });
});
