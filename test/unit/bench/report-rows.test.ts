import { describe, expect, it } from 'vitest';
import { TARGETS } from '../../../scripts/bench/bench-targets.js';
import { keptAttempt, shouldRepeat, type StealRecord } from '../../../scripts/bench/cpu-steal.js';
import { buildReport, type Measurement } from '../../../scripts/bench/report-rows.js';
import { formatTable, stealCell } from '../../../scripts/bench/report-table.js';

const steal: StealRecord = { percent: 3, attempts: [3], kept: 0 };

function m(partial: Partial<Measurement> & Pick<Measurement, 'id'>): Measurement {
  return { scenario: partial.id, unit: 'ms', floor: null, farebox: null, portkey: null, steal, ...partial };
}

function row(measurements: Measurement[], id: string) {
  const found = buildReport(measurements).find((r) => r.id === id);
  if (!found) throw new Error(`no row ${id}`);
  return found;
}

describe('bench report rows', () => {
  it('computes Farebox ÷ floor and ÷ Portkey, and the differences', () => {
    const r = row([m({ id: 't', unit: 'req/s', floor: 5000, farebox: 3100, portkey: 1000, target: TARGETS.throughput })], 't');
    expect(r.ratio).toEqual({ fareboxOverFloor: 0.62, fareboxOverPortkey: 3.1 });
    expect(r.added).toEqual({ overFloor: -1900, overPortkey: 2100 });
    expect(r.target).toBe('≥ 60% of floor');
    expect(r.met).toBe(true);
  });

  it('misses the throughput target below 60 % of the floor', () => {
    expect(row([m({ id: 't', unit: 'req/s', floor: 5000, farebox: 2999, portkey: null, target: TARGETS.throughput })], 't').met).toBe(false);
  });

  it('leaves ratios empty where a figure is missing or zero', () => {
    const r = row([m({ id: 'x', floor: 0, farebox: 4, portkey: null, portkeyNote: 'n/a — no equivalent' })], 'x');
    expect(r.ratio).toEqual({ fareboxOverFloor: null, fareboxOverPortkey: null });
    expect(r.added.overPortkey).toBeNull();
    expect(r.portkeyNote).toBe('n/a — no equivalent');
    expect(r.met).toBeNull();
  });

  it('adds the lone commit p99 of the same run to the p99 budget at 500 req/s', () => {
    const lone = m({ id: 'ledger-lone-p99', farebox: 12.5 });
    const within = row([m({ id: 'p', floor: 10, farebox: 24.4, target: TARGETS.p99Paced }), lone], 'p');
    expect(within.limit).toBe(14.5);
    expect(within.met).toBe(true);
    expect(within.target).toContain('lone commit p99');
    const over = row([m({ id: 'p', floor: 10, farebox: 24.6, target: TARGETS.p99Paced }), lone], 'p');
    expect(over.met).toBe(false);
  });

  it('does not judge the p99 target when the lone commit was not measured in the run', () => {
    const r = row([m({ id: 'p', floor: 10, farebox: 11, target: TARGETS.p99Paced })], 'p');
    expect(r.met).toBeNull();
    expect(r.note).toContain('not measured');
  });

  it('checks TTFB as time added over the floor', () => {
    expect(row([m({ id: 's', floor: 1, farebox: 1.9, target: TARGETS.ttfb })], 's').met).toBe(true);
    expect(row([m({ id: 's', floor: 1, farebox: 2.1, target: TARGETS.ttfb })], 's').met).toBe(false);
  });

  it('checks absolute bounds, strict where the target says "under"', () => {
    expect(row([m({ id: 'rss', unit: 'MB', farebox: 599.9, target: TARGETS.openStreamsRss })], 'rss').met).toBe(true);
    expect(row([m({ id: 'rss', unit: 'MB', farebox: 600, target: TARGETS.openStreamsRss })], 'rss').met).toBe(false);
    expect(row([m({ id: 'img', farebox: 100, target: TARGETS.bigImage })], 'img').met).toBe(true);
    expect(row([m({ id: 'led', unit: 'charges/s', farebox: 9_999, target: TARGETS.ledgerChargesPerSecond })], 'led').met).toBe(false);
    expect(row([m({ id: 'q', floor: 0.01, farebox: 5.01, target: TARGETS.queueP50 })], 'q').met).toBe(true);
    expect(row([m({ id: 'q', floor: 0.01, farebox: 20.02, target: TARGETS.queueP99 })], 'q').met).toBe(false);
  });

  it('never calls an invalid measurement met, however good its figure', () => {
    const r = row([m({ id: 'j', unit: 'jobs/s', farebox: 5_000, target: TARGETS.jobsPerSecond, valid: false, note: '3 jobs failed' })], 'j');
    expect(r.met).toBe(false);
    expect(r.note).toBe('3 jobs failed');
  });

  it('prints the table shape of docs/performance.md', () => {
    const table = formatTable(buildReport([m({ id: 't', scenario: 'chat max throughput (1 core)', unit: 'req/s', floor: 5000, farebox: 3000, portkey: 1500, target: TARGETS.throughput })]));
    const [header, , line] = table.split('\n');
    expect(header?.split('|').map((c) => c.trim())).toEqual(['scenario', 'floor', 'Farebox', 'Portkey', 'Farebox÷floor', 'Farebox÷Portkey', 'target', 'met', 'steal']);
    expect(line?.split('|').map((c) => c.trim())).toEqual(['chat max throughput (1 core)', '5000 req/s', '3000 req/s', '1500 req/s', '60%', '200%', '≥ 60% of floor', 'yes', '3%']);
  });
});

describe('CPU steal repetitions', () => {
  it('repeats a row only while steal is above 20 %, at most twice', () => {
    expect(shouldRepeat([4])).toBe(false);
    expect(shouldRepeat([20])).toBe(false);
    expect(shouldRepeat([20.1])).toBe(true);
    expect(shouldRepeat([35, 25])).toBe(true);
    expect(shouldRepeat([35, 10])).toBe(false);
    expect(shouldRepeat([35, 30, 40])).toBe(false);
  });

  it('reports the attempt with the least steal', () => {
    expect(keptAttempt([35, 22, 28])).toBe(1);
    expect(keptAttempt([Number.NaN, 30])).toBe(1);
    expect(keptAttempt([5])).toBe(0);
  });

  it('shows every attempt of a repeated row', () => {
    expect(stealCell({ percent: 22, attempts: [35, 22, 28], kept: 1 })).toBe('35% → 22% → 28% (3 runs, kept 2)');
    expect(stealCell(null)).toBe('—');
  });
});
