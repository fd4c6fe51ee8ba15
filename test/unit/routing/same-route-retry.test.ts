import { describe, expect, it } from 'vitest';
import { upstreamStatusError } from '../../../src/providers/http/upstream-errors.js';
import { GatewayError } from '../../../src/platform/errors/gateway-error.js';
import { judgeFailure } from '../../../src/routing/index.js';
import { RetryBudget } from '../../../src/routing/retry-budget.js';
import { QUICK_FAILURE_MS, sameRouteDelay, TRANSIENT_RETRY_DELAY_MS } from '../../../src/routing/same-route-retry.js';

const body = '{"error":{"message":"nope"}}';
const verdict = (status: number, headers: Record<string, string> = {}) => judgeFailure(upstreamStatusError(status, headers, body));

describe('judgeFailure: a stated Retry-After', () => {
  it('is told apart from the default second of a 429 that named no wait', () => {
    expect(verdict(429, { 'retry-after': '2' })).toMatchObject({ retryAfterMs: 2_000, retryAfterStated: true });
    expect(verdict(429)).toMatchObject({ retryAfterMs: 1_000 });
    expect(verdict(429).retryAfterStated).toBeUndefined();
  });
});

describe('sameRouteDelay', () => {
  const roomy = new RetryBudget(10_000);

  it('waits out a stated Retry-After that fits in the budget, and moves on when it does not', () => {
    expect(sameRouteDelay({ verdict: verdict(429, { 'retry-after': '2' }), tookMs: 5, waitMs: 2_000 }, roomy)).toBe(2_000);
    expect(sameRouteDelay({ verdict: verdict(429, { 'retry-after': '30' }), tookMs: 5, waitMs: 30_000 }, roomy)).toBeUndefined();
    expect(sameRouteDelay({ verdict: verdict(429, { 'retry-after': '2' }), tookMs: 5, waitMs: 2_000 }, new RetryBudget(0))).toBeUndefined();
  });

  it('moves on at once after a 429 that named no wait', () => {
    expect(sameRouteDelay({ verdict: verdict(429), tookMs: 5, waitMs: 1_000 }, roomy)).toBeUndefined();
  });

  it('retries a quick server error or overload after a short pause, not a slow one', () => {
    for (const status of [500, 502, 503, 504, 529]) {
      const delay = sameRouteDelay({ verdict: verdict(status), tookMs: 20, waitMs: 0 }, roomy);
      expect(delay, String(status)).toBeGreaterThanOrEqual(TRANSIENT_RETRY_DELAY_MS);
      expect(delay, String(status)).toBeLessThanOrEqual(TRANSIENT_RETRY_DELAY_MS * 1.5);
    }
    expect(sameRouteDelay({ verdict: verdict(503), tookMs: QUICK_FAILURE_MS + 1, waitMs: 0 }, roomy)).toBeUndefined();
  });

  it('takes the operator\'s quick-failure limit over the default', () => {
    const slowish = { verdict: verdict(503), tookMs: 2_400, waitMs: 0 };
    expect(sameRouteDelay(slowish, roomy)).toBeGreaterThanOrEqual(TRANSIENT_RETRY_DELAY_MS);
    expect(sameRouteDelay(slowish, roomy, 2_000)).toBeUndefined();
  });

  it('never retries a silent route, a reset, a refused key, a request too long for the context, or an answer every route would give', () => {
    const transport = (kind: 'timeout' | 'reset' | 'connect') => judgeFailure(new GatewayError('upstream_timeout', 'x', { upstream: { transport: kind } }));
    const failures = [
      transport('timeout'),
      transport('reset'),
      transport('connect'),
      verdict(401),
      verdict(400),
      judgeFailure(upstreamStatusError(400, {}, '{"error":{"message":"too long","code":"context_length_exceeded"}}')),
      verdict(501),
    ];
    for (const failed of failures) expect(sameRouteDelay({ verdict: failed, tookMs: 5, waitMs: 0 }, roomy), failed.cause).toBeUndefined();
  });
});
