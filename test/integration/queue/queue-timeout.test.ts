import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../../helpers/admin-client.js';
import { startQueueGateway, type QueueGateway } from './queue-gateway.js';
import { waitFor } from '../../helpers/wait-for.js';

let q: QueueGateway;
let key: { accountId: string; raw: string };

beforeAll(async () => {
  // No workers: every job waits until the front door gives up.
  q = await startQueueGateway({ env: { JOB_TIMEOUT_MS: '400' }, workers: false });
  key = await q.fundedKey();
});
afterAll(async () => q?.close());

async function balance(): Promise<number> {
  const res = await call(q.gw.url, 'GET', '/v1/credits', { token: key.raw });
  return res.body.data.balance_usd as number;
}

describe('front-door timeout on the queue path', () => {
  it('answers 504 upstream_timeout, charges nothing, and removes the waiting job', async () => {
    const before = await balance();
    const res = await call(q.gw.url, 'POST', '/v1/images/generations', {
      token: key.raw,
      body: { model: 'local/canvas-image', prompt: 'never rendered', size: '64x64' },
    });
    expect(res.status).toBe(504);
    expect(res.body.error.code).toBe('upstream_timeout');
    const requestId = res.headers.get('x-service-request-id') ?? '';
    expect(await q.charge(requestId)).toBeNull();
    expect(await q.jobs.queue('images').getJob(requestId)).toBeUndefined();
    expect(await q.jobs.store.isCancelled(requestId)).toBe(true);
    expect(await balance()).toBe(before);
    // The hold was released: nothing of the account is in flight any more.
    const keyDoc = await q.gw.deps.c.keys.findOne({ account_id: key.accountId });
    if (!keyDoc) throw new Error('key not found');
    expect((await q.gw.deps.admission.liveUsage(keyDoc)).heldUsd).toBe(0n);
  });
});

describe('front-door timeout while a worker runs the job', () => {
  it('answers 504, the worker abandons the job, and nothing is charged or left behind', async () => {
    // Ten 2048x2048 renders take well over the 0.7 s the front door waits, even on an idle machine.
    const running = await startQueueGateway({ env: { JOB_TIMEOUT_MS: '700' } });
    try {
      const funded = await running.fundedKey();
      const res = await call(running.gw.url, 'POST', '/v1/images/generations', {
        token: funded.raw,
        body: { model: 'local/canvas-image', prompt: 'slow '.repeat(40), n: 10, size: '2048x2048' },
      });
      expect(res.status).toBe(504);
      const requestId = res.headers.get('x-service-request-id') ?? '';
      const queue = running.jobs.queue('images');
      // The worker notices the cancellation between images and fails the job for good.
      const job = await waitFor('the job to end', async () => {
        const found = await queue.getJob(requestId);
        return found?.finishedOn === undefined ? undefined : found;
      }, { timeoutMs: 20_000, intervalMs: 200 });
      expect(await job?.getState()).toBe('failed');
      expect(job?.attemptsMade).toBe(1);
      expect(await running.jobs.store.getResult(requestId)).toBeUndefined();
      expect(await running.charge(requestId)).toBeNull();
    } finally {
      await running.close();
    }
  });
});

describe('client disconnect while a worker runs the job', () => {
  it('cancels the job, releases the hold and charges nothing', async () => {
    const running = await startQueueGateway({ env: { JOB_TIMEOUT_MS: '60000' } });
    try {
      const funded = await running.fundedKey();
      const keyDoc = await running.gw.deps.c.keys.findOne({ account_id: funded.accountId });
      if (!keyDoc) throw new Error('key not found');
      const queue = running.jobs.queue('images');
      const controller = new AbortController();
      const request = fetch(`${running.gw.url}/v1/images/generations`, {
        method: 'POST',
        headers: { authorization: `Bearer ${funded.raw}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'local/canvas-image', prompt: 'abandoned', n: 8, size: '2048x2048' }),
        signal: controller.signal,
      }).catch(() => undefined);
      const active = await waitFor('a worker to take the job', async () => {
        const jobs = await queue.getActive();
        return jobs.length === 0 ? undefined : jobs;
      }, { timeoutMs: 10_000 });
      const requestId = active[0]?.id ?? '';
      expect(requestId).not.toBe('');
      controller.abort();
      await request;
      const state = await waitFor('the job to stop running', async () => {
        const now = await queue.getJobState(requestId);
        return now === 'active' ? undefined : now;
      }, { timeoutMs: 10_000, intervalMs: 100 });
      expect(state).toBe('failed');
      expect(await running.charge(requestId)).toBeNull();
      expect(await running.jobs.store.getResult(requestId)).toBeUndefined();
      expect((await running.gw.deps.admission.liveUsage(keyDoc)).heldUsd).toBe(0n);
    } finally {
      await running.close();
    }
  });
});
