import { afterEach, describe, expect, it } from 'vitest';
import { OverloadGauge } from '../../../../src/platform/runtime/index.js';

const gauges: OverloadGauge[] = [];
afterEach(() => {
  for (const g of gauges.splice(0)) g.stop();
});
const gauge = (maxEventLoopDelayMs: number, maxInFlight: number) => {
  const g = new OverloadGauge({ maxEventLoopDelayMs, maxInFlight });
  gauges.push(g);
  return g;
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Keeps the event loop busy for `ms`, as a saturated web does. */
const block = (ms: number) => {
  const end = performance.now() + ms;
  while (performance.now() < end);
};

describe('overload gauge', () => {
  it('gives places up to the in-flight bound, and again once one is given back', () => {
    const g = gauge(0, 2);
    expect([g.enter(), g.enter(), g.enter()]).toEqual([undefined, undefined, 'in_flight']);
    g.leave();
    expect(g.enter()).toBeUndefined();
    expect(g.running).toBe(2);
  });

  it('sheds on a sustained event-loop delay, not on one stall, and recovers once the loop is quick again', async () => {
    const g = gauge(70, 0);
    await sleep(60);
    // One stall: one late sample.
    block(120);
    await sleep(5);
    expect(g.enter()).toBeUndefined();
    g.leave();
    // A loop kept busy turn after turn.
    for (let i = 0; i < 6; i++) {
      block(120);
      await sleep(1);
    }
    expect(g.delayMs()).toBeGreaterThanOrEqual(70);
    expect(g.enter()).toBe('event_loop_delay');
    await sleep(100);
    expect(g.enter()).toBeUndefined();
  });

  it('never sheds with both signals off', () => {
    const g = gauge(0, 0);
    block(100);
    for (let i = 0; i < 10_000; i++) expect(g.enter()).toBeUndefined();
  });
});
