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

  it('narrows the work in flight while the loop stays late, not for one stall, and widens it again once the loop is quick', async () => {
    const g = gauge(70, 0);
    // A hundred requests at work.
    for (let i = 0; i < 100; i++) expect(g.enter()).toBeUndefined();
    await sleep(60);
    // One stall: one late sample, no limit.
    block(120);
    await sleep(5);
    expect(g.enter()).toBeUndefined();
    g.leave();
    // A loop kept busy turn after turn: the limit falls below what is in flight.
    for (let i = 0; i < 6; i++) {
      block(120);
      await sleep(1);
    }
    expect(g.delayMs()).toBeGreaterThanOrEqual(70);
    expect(g.allowed).toBeLessThan(100);
    expect(g.enter()).toBe('event_loop_delay');
    // Quick again, and the work done: room grows back.
    for (let i = 0; i < 100; i++) g.leave();
    await sleep(200);
    expect(g.enter()).toBeUndefined();
    expect(g.allowed).toBeGreaterThan(g.running);
  });

  it('never sheds with both signals off', () => {
    const g = gauge(0, 0);
    block(100);
    for (let i = 0; i < 10_000; i++) expect(g.enter()).toBeUndefined();
  });
});
