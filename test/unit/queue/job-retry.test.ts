import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { retryFits } from '../../../src/queue/job-retry.js';

/** A job queued at 0 whose client waits 180 s, and an attempt that started at `startedAt`. */
const times = (startedAt: number) => ({ queuedAt: 0, startedAt, deadline: 180_000 });

describe('retryFits: a transient failure is tried again only inside the client\'s wait', () => {
  it('a quick failure early in the wait is retried', () => {
    expect(retryFits(times(0), 500)).toBe(true);
  });

  it('a failure that took 40 s is answered at once', () => {
    expect(retryFits(times(0), 40_000)).toBe(false);
  });

  it('a quick failure near the deadline is answered at once', () => {
    expect(retryFits(times(170_000), 175_000)).toBe(false);
  });

  it('never retries when twice the attempt would not fit before the deadline, nor after a slow one', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 180_000 }), fc.integer({ min: 0, max: 180_000 }), (startedAt, took) => {
        const now = startedAt + took;
        if (retryFits(times(startedAt), now)) {
          expect(180_000 - now).toBeGreaterThanOrEqual(2 * took);
          expect(took).toBeLessThanOrEqual(18_000);
        }
      }),
    );
  });
});
