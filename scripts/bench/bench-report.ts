import os from 'node:os';
import { readFileSync } from 'node:fs';
import type { CpuUse } from './proc-stats.js';

/** One line of the results table. */
export interface ResultRow {
  scenario: string;
  unit: string;
  /** Same measurement on the bare proxy (or the direct provider call), when there is one. */
  floor: number | null;
  farebox: number | null;
  /** farebox ÷ floor. */
  ratio: number | null;
  /** farebox − floor. */
  added: number | null;
  /** The DESIGN §9 target, or "—" for context figures. */
  target: string;
  met: boolean | null;
}

/** CPU use of every process during one measurement. */
export interface CpuRecord {
  during: string;
  seconds: number;
  processes: CpuUse[];
  /** CPU of processes the bench did not start, % of one core: more than a little skews results. */
  othersPercent: number;
  stealPercent: number;
}

function r(value: number, digits = 3): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/** A row compared by ratio to the floor, e.g. throughput ≥ 50 % of the bare proxy. */
export function ratioRow(scenario: string, unit: string, floor: number, farebox: number, minRatio: number | null, target: string): ResultRow {
  const ratio = floor > 0 ? r(farebox / floor) : null;
  return { scenario, unit, floor: r(floor), farebox: r(farebox), ratio, added: r(farebox - floor), target, met: minRatio === null || ratio === null ? null : ratio >= minRatio };
}

/** A row compared by what the gateway adds over the floor, e.g. p99 ≤ +3 ms. */
export function addedRow(scenario: string, unit: string, floor: number, farebox: number, maxAdded: number | null, target: string): ResultRow {
  const added = r(farebox - floor);
  return { scenario, unit, floor: r(floor), farebox: r(farebox), ratio: floor > 0 ? r(farebox / floor) : null, added, target, met: maxAdded === null ? null : added <= maxAdded };
}

/** A row with an absolute target only (e.g. RSS < 600 MB); `floor` is optional context. */
export function absoluteRow(scenario: string, unit: string, farebox: number, met: boolean | null, target: string, floor: number | null = null): ResultRow {
  return { scenario, unit, floor: floor === null ? null : r(floor), farebox: r(farebox), ratio: floor !== null && floor > 0 ? r(farebox / floor) : null, added: null, target, met };
}

function show(value: number | null, unit: string): string {
  if (value === null || Number.isNaN(value)) return '—';
  const digits = Math.abs(value) >= 100 ? 0 : Math.abs(value) >= 10 ? 1 : 2;
  return `${value.toFixed(digits)} ${unit}`;
}

function comparison(row: ResultRow): string {
  if (row.floor === null || row.farebox === null) return '—';
  // Against a microsecond floor (the direct provider call) a ratio says nothing; the added time does.
  const ratio = row.ratio === null || row.ratio > 50 ? '' : `${(row.ratio * 100).toFixed(0)}%`;
  if (row.added === null || row.unit === 'req/s' || row.unit === 'jobs/s') return ratio || '—';
  const sign = row.added >= 0 ? '+' : '';
  const added = `${sign}${row.added.toFixed(2)} ${row.unit}`;
  return ratio ? `${ratio} (${added})` : added;
}

/** The results as a plain-text table (also pasted into the README). */
export function formatTable(rows: readonly ResultRow[]): string {
  const header = ['scenario', 'floor', 'farebox', 'ratio', 'target', 'met?'];
  const body = rows.map((row) => [row.scenario, show(row.floor, row.unit), show(row.farebox, row.unit), comparison(row), row.target, row.met === null ? '—' : row.met ? 'yes' : 'NO']);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((line) => (line[i] ?? '').length)));
  const line = (cells: string[]) => cells.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join(' | ').trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('-|-'), ...body.map(line)].join('\n');
}

/** CPU use per process, one line per measurement, in percent of one core. */
export function formatCpu(records: readonly CpuRecord[]): string {
  return records
    .map((rec) => {
      const parts = rec.processes.filter((p) => p.percent >= 0.5).map((p) => `${p.name}@${p.core} ${p.percent.toFixed(0)}%`);
      const outside = `| not ours ${rec.othersPercent.toFixed(0)}%${rec.stealPercent >= 1 ? `, steal ${rec.stealPercent.toFixed(0)}%` : ''}`;
      return `${rec.during.padEnd(34)} ${parts.join(', ')} ${outside}`;
    })
    .join('\n');
}

/** What the numbers were measured on. */
export interface MachineInfo {
  cpuModel: string;
  cpuCount: number;
  memoryGiB: number;
  node: string;
  os: string;
  /** Load average when the run started and ended: other work on the machine skews results. */
  loadAverage: { start: number[]; end?: number[] };
}

/** Describes this machine (CPU, memory, Node, OS, load). */
export function machineInfo(): MachineInfo {
  const cpus = os.cpus();
  let osName = `${os.type()} ${os.release()}`;
  try {
    const pretty = /^PRETTY_NAME="?([^"\n]+)"?/m.exec(readFileSync('/etc/os-release', 'utf8'));
    if (pretty?.[1]) osName = `${pretty[1]} (${os.release()})`;
  } catch {
    // not Linux
  }
  return {
    cpuModel: cpus[0]?.model.trim() ?? 'unknown',
    cpuCount: cpus.length,
    memoryGiB: r(os.totalmem() / 1024 ** 3, 1),
    node: process.version,
    os: osName,
    loadAverage: { start: os.loadavg().map((v) => r(v, 2)) },
  };
}
