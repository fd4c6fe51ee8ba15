import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ShutdownReport } from '../../../../src/platform/runtime/shutdown-report.js';
import { HARD_EXIT_MS, onShutdown, runShutdown, runSteps, type ShutdownStep } from '../../../../src/platform/runtime/shutdown.js';

const never = (): Promise<void> => new Promise<void>(() => undefined);

/** Moves the fake clock far enough for every bound here to fall due, then takes the result. */
async function afterTime<T>(work: Promise<T>): Promise<T> {
  await vi.advanceTimersByTimeAsync(10_000);
  return work;
}

// Timeouts and budgets are the logic under test: the clock is fake, moved by the tests.
beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('ordered shutdown steps', () => {
  it('runs steps in order, cuts a hanging one at its timeout and still runs the rest', async () => {
    const ran: string[] = [];
    const steps: ShutdownStep[] = [
      { name: 'drain', timeoutMs: 50, run: async (r) => { ran.push('drain'); r.note('streams cut', 2); } },
      { name: 'charges', timeoutMs: 50, run: () => { ran.push('charges'); return never(); }, onCut: (r) => r.note('charges not committed', 3) },
      { name: 'close', timeoutMs: 50, run: async () => void ran.push('close') },
    ];
    const report = await afterTime(runSteps(steps, 5_000, new ShutdownReport()));
    expect(ran).toEqual(['drain', 'charges', 'close']);
    expect(report.toJSON()).toEqual({ 'streams cut': 2, 'charges not committed': 3 });
    expect(report.summary()).toBe('2 streams cut, 3 charges not committed, charges timed out');
  });

  it('shares one overall budget: once it is spent, later steps get no time', async () => {
    const steps: ShutdownStep[] = [
      { name: 'slow', timeoutMs: 10_000, run: never },
      { name: 'after', timeoutMs: 10_000, run: never },
    ];
    const report = await afterTime(runSteps(steps, 100, new ShutdownReport()));
    expect(report.summary()).toBe('slow timed out, after timed out');
  });

  it('a step that throws is reported as failed', async () => {
    const report = await afterTime(runSteps([{ name: 'boom', timeoutMs: 100, run: () => Promise.reject(new Error('x')) }], 1_000, new ShutdownReport()));
    expect(report.summary()).toBe('boom failed');
  });

  it('exits 0 with "nothing left undone" when every step finished, 1 otherwise', async () => {
    const codes: number[] = [];
    const log = pino({ level: 'silent' });
    await afterTime(runShutdown(log, [{ name: 'ok', timeoutMs: 100, run: async () => undefined }], { graceMs: 1_000, exit: (c) => void codes.push(c) }));
    const undone = await afterTime(runShutdown(log, [{ name: 'hang', timeoutMs: 20, run: never }], { graceMs: 1_000, exit: (c) => void codes.push(c) }));
    expect(codes).toEqual([0, 1]);
    expect(new ShutdownReport().summary()).toBe('nothing left undone');
    expect(undone.summary()).toBe('hang timed out');
  });
});

describe('signals', () => {
  it('a second SIGTERM exits at once while the first shutdown still hangs', async () => {
    const codes: number[] = [];
    const remove = onShutdown(pino({ level: 'silent' }), { graceMs: 60_000, exit: (c) => void codes.push(c) }, () => [
      { name: 'hang', timeoutMs: 60_000, run: never },
    ]);
    try {
      process.emit('SIGTERM');
      // The first shutdown is under way and hangs; short of the backstop, nothing exits.
      await vi.advanceTimersByTimeAsync(HARD_EXIT_MS - 1_000);
      expect(codes).toEqual([]);
      process.emit('SIGTERM');
      expect(codes).toEqual([1]);
    } finally {
      remove();
    }
  });

  it('SIGINT exits at once', () => {
    const codes: number[] = [];
    const remove = onShutdown(pino({ level: 'silent' }), { graceMs: 60_000, exit: (c) => void codes.push(c) }, () => []);
    try {
      process.emit('SIGINT');
      expect(codes).toEqual([1]);
    } finally {
      remove();
    }
  });
});
