import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { upstreamStatusError } from '../../../src/providers/http/upstream-errors.js';
import type { JobModel } from '../../../src/queue/job-types.js';
import { AttemptList, RouteHealth } from '../../../src/routing/index.js';
import { onJobRoutes } from '../../../workers/processors/job-routes.js';

/** An OCR job's model with two routes: `a` first, `b` second. */
const MODEL: JobModel = {
  id: 'v/ocr', kind: 'ocr', provider: 'a', upstreamModel: 'ocr-a', pricing: { page: '0.001' },
  routes: [{ provider: 'a', upstreamModel: 'ocr-a', pricing: { page: '0.001' } }, { provider: 'b', upstreamModel: 'ocr-b', pricing: { page: '0.002' } }],
};

describe('job failover through the routing module', () => {
  it("an OCR job's failures open the worker's breaker; the next job skips the route without calling it", async () => {
    const routing = { log: pino({ level: 'silent' }), routeHealth: new RouteHealth({ breakerFailures: 1, breakerCooldownMs: 60_000 }) };
    const calls: string[] = [];
    const call = async (provider: string): Promise<string> => {
      calls.push(provider);
      if (provider === 'a') throw upstreamStatusError(503, {}, '{"error":{"message":"down"}}');
      return `pages from ${provider}`;
    };
    const signal = new AbortController().signal;
    const first = await onJobRoutes(MODEL, routing, { requestId: 'req_1', signal, attempts: new AttemptList() }, (provider) => provider, call);
    expect([first.value, first.index]).toEqual(['pages from b', 1]);
    expect(first.attempts.map((a) => [a.provider, a.outcome, a.cause, a.status])).toEqual([['a', 'failed', 'status_503', 503], ['b', 'answered', null, null]]);
    const second = await onJobRoutes(MODEL, routing, { requestId: 'req_2', signal, attempts: new AttemptList() }, (provider) => provider, call);
    expect(calls).toEqual(['a', 'b', 'b']);
    expect(second.attempts.map((a) => [a.provider, a.outcome, a.cause])).toEqual([['a', 'skipped', 'circuit_open'], ['b', 'answered', null]]);
  });

  it('a failure every route would give is the answer at once, and a disabled provider is passed over', async () => {
    const routing = { log: pino({ level: 'silent' }) };
    const calls: string[] = [];
    const lookup = (provider: string): string => {
      if (provider === 'a') throw new Error('disabled');
      return provider;
    };
    const request = { requestId: 'req_3', signal: new AbortController().signal, attempts: new AttemptList() };
    const refused = onJobRoutes(MODEL, routing, request, lookup, async (provider) => {
      calls.push(provider);
      throw upstreamStatusError(400, {}, '{"error":{"message":"bad document"}}');
    });
    await expect(refused).rejects.toMatchObject({ code: 'invalid_request' });
    expect(calls).toEqual(['b']);
  });
});
