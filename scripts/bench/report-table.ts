import type { StealRecord } from './cpu-steal.js';
import type { ReportRow } from './report-rows.js';

/** Rate units: compared by ratio only (a difference in req/s says little). */
const RATE_UNITS = new Set(['req/s', 'jobs/s', 'charges/s']);

function show(value: number | null, unit: string): string {
  if (value === null) return '—';
  const digits = Math.abs(value) >= 100 ? 0 : Math.abs(value) >= 10 ? 1 : 2;
  return `${value.toFixed(digits)} ${unit}`;
}

/** A ratio as a percentage, with the difference for latency-like rows, e.g. `178% (+90.00 ms)`. */
function compare(ratio: number | null, added: number | null, unit: string): string {
  // Against a microsecond floor (the direct provider call) a ratio says nothing; the added time does.
  const share = ratio === null || ratio > 50 ? '' : `${(ratio * 100).toFixed(0)}%`;
  if (added === null || RATE_UNITS.has(unit)) return share || '—';
  const diff = `${added >= 0 ? '+' : ''}${added.toFixed(2)} ${unit}`;
  return share ? `${share} (${diff})` : diff;
}

function portkeyCell(row: ReportRow): string {
  if (row.portkey === null) return row.portkeyNote ?? '—';
  const figure = show(row.portkey, row.unit);
  return row.portkeyNote ? `${figure} (${row.portkeyNote})` : figure;
}

/** Steal of the reported attempt; a repeated row shows every attempt, e.g. `31% → 4% (3 runs)`. */
export function stealCell(steal: StealRecord | null): string {
  if (steal === null || !Number.isFinite(steal.percent)) return '—';
  if (steal.attempts.length === 1) return `${steal.percent.toFixed(0)}%`;
  return `${steal.attempts.map((p) => `${p.toFixed(0)}%`).join(' → ')} (${steal.attempts.length} runs, kept ${steal.kept + 1})`;
}

const HEADER = ['scenario', 'floor', 'Farebox', 'Portkey', 'Farebox÷floor', 'Farebox÷Portkey', 'target', 'met', 'steal'];

/** The report as a plain-text table (the shape the table in docs/performance.md has). */
export function formatTable(rows: readonly ReportRow[]): string {
  const body = rows.map((row) => [
    row.scenario,
    show(row.floor, row.unit),
    show(row.farebox, row.unit),
    portkeyCell(row),
    compare(row.ratio.fareboxOverFloor, row.added.overFloor, row.unit),
    compare(row.ratio.fareboxOverPortkey, row.added.overPortkey, row.unit),
    row.target,
    row.met === null ? '—' : row.met ? 'yes' : 'NO',
    stealCell(row.steal),
  ]);
  const widths = HEADER.map((h, i) => Math.max(h.length, ...body.map((line) => (line[i] ?? '').length)));
  const line = (cells: string[]) => cells.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join(' | ').trimEnd();
  return [line(HEADER), widths.map((w) => '-'.repeat(w)).join('-|-'), ...body.map(line)].join('\n');
}

/** The rows' longer remarks, one line each, for under the table. */
export function formatNotes(rows: readonly ReportRow[]): string {
  return rows
    .filter((row) => row.note)
    .map((row) => `- ${row.scenario}: ${row.note}`)
    .join('\n');
}
