import { afterEach, describe, expect, it } from 'vitest';
import { OverloadGauge } from '../../../../src/platform/runtime/index.js';

const gauges: OverloadGauge[] = [];
afterEach(() => {
  for (const g of gauges.splice(0)) g.stop();
});
const gauge = (maxEventLoopDelayMs: number, maxInFlight: number, maxEventLoopBusy = 0) => {
  const g = new OverloadGauge({ maxEventLoopDelayMs, maxInFlight, maxEventLoopBusy });
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

  it('narrows the work in flight while the loop is busy nearly all the time, though it is never late for long', async () => {
    /** Turns of 10 ms work with a moment between them, for `ms`: a timer is never more than a turn late. */
    const busyTurns = async (ms: number) => {
      const end = performance.now() + ms;
      while (performance.now() < end) {
        block(10);
        await new Promise((r) => setImmediate(r));
      }
    };
    const byDelay = gauge(70, 0);
    const byBusy = gauge(70, 0, 0.9);
    for (let i = 0; i < 100; i++) {
      byDelay.enter();
      byBusy.enter();
    }
    await busyTurns(300);
    expect(byDelay.delayMs()).toBeLessThan(70);
    expect(byDelay.enter()).toBeUndefined();
    expect(byBusy.allowed).toBeLessThan(100);
    expect(byBusy.enter()).toBe('event_loop_busy');
    // Idle again, the work done: room grows back.
    for (let i = 0; i < 100; i++) byBusy.leave();
    await sleep(200);
    expect(byBusy.enter()).toBeUndefined();
  });

  it('never sheds with every signal off', () => {
    const g = gauge(0, 0);
    block(100);
    for (let i = 0; i < 10_000; i++) expect(g.enter()).toBeUndefined();
  });
});
