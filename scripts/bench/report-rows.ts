import type { StealRecord } from './cpu-steal.js';

/**
 * A DESIGN §9 target, checked against the Farebox figure of a measurement:
 * - `share-of-floor`: Farebox ÷ floor ≥ `share` (max throughput);
 * - `added-over-floor`: Farebox − floor ≤ `ms`, plus the Farebox figure of the measurement
 *   `plus` names when given (p99 at 500 req/s may add the lone durable commit p99 of the run);
 * - `at-least` / `at-most` / `below`: an absolute bound on the Farebox figure;
 * - `below-peer`: the Farebox figure under the Portkey figure of the same row;
 * - `within-peer-plus`: the Farebox figure at most the Portkey figure of the row plus `ms`.
 */
export type Target =
  | { kind: 'share-of-floor'; share: number }
  | { kind: 'added-over-floor'; ms: number; plus?: { id: string; label: string } }
  | { kind: 'at-least'; value: number }
  | { kind: 'at-most'; value: number }
  | { kind: 'below'; value: number }
  | { kind: 'below-peer' }
  | { kind: 'within-peer-plus'; ms: number };

/** What a scenario measured for one row: raw figures only, no ratios or verdicts. */
export interface Measurement {
  /** Stable name, e.g. `chat-throughput` (other rows' targets may refer to it). */
  id: string;
  /** Row label in the table. */
  scenario: string;
  unit: string;
  /** The same measurement on the bare proxy (or the provider called directly), when there is one. */
  floor: number | null;
  farebox: number | null;
  /** The same measurement on the Portkey peer, when there is one. */
  portkey: number | null;
  /** Shown instead of a Portkey figure, or beside it (e.g. "n/a — no equivalent", "at 300 req/s"). */
  portkeyNote?: string;
  target?: Target;
  /** False when the run itself did not hold (failed requests, streams not all open): never "met". */
  valid?: boolean;
  /** A longer remark printed under the table (why a peer failed, why a target is not checked). */
  note?: string;
  /** CPU steal over the window this row was measured in; null when not measured. */
  steal: StealRecord | null;
}

/** One row of bench-results.json and the printed table. */
export interface ReportRow {
  id: string;
  scenario: string;
  unit: string;
  floor: number | null;
  farebox: number | null;
  portkey: number | null;
  portkeyNote?: string;
  ratio: { fareboxOverFloor: number | null; fareboxOverPortkey: number | null };
  added: { overFloor: number | null; overPortkey: number | null };
  /** The target as text ("—" for context rows) and the bound it resolved to in this run. */
  target: string;
  limit: number | null;
  met: boolean | null;
  steal: StealRecord | null;
  note?: string;
}

const finite = (value: number | null | undefined): value is number => typeof value === 'number' && Number.isFinite(value);

function r3(value: number): number {
  return Math.round(value * 1000) / 1000;
}

function divide(a: number | null, b: number | null): number | null {
  return finite(a) && finite(b) && b > 0 ? r3(a / b) : null;
}

function subtract(a: number | null, b: number | null): number | null {
  return finite(a) && finite(b) ? r3(a - b) : null;
}

const grouped = (n: number): string => n.toLocaleString('en-US', { maximumFractionDigits: 3 });

/** The bound a target resolves to in this run, its text, and why it could not be resolved. */
function resolveTarget(target: Target, m: Measurement, byId: ReadonlyMap<string, Measurement>): { limit: number | null; text: string; missing?: string } {
  const { unit } = m;
  switch (target.kind) {
    case 'share-of-floor':
      return { limit: target.share, text: `≥ ${Math.round(target.share * 100)}% of floor` };
    case 'added-over-floor': {
      if (!target.plus) return { limit: target.ms, text: `≤ +${grouped(target.ms)} ${unit}` };
      const extra = byId.get(target.plus.id)?.farebox;
      if (!finite(extra)) return { limit: null, text: `≤ +${grouped(target.ms)} ${unit} + ${target.plus.label}`, missing: `${target.plus.label} was not measured in this run` };
      const limit = r3(target.ms + extra);
      return { limit, text: `≤ +${grouped(target.ms)} ${unit} + ${target.plus.label} (= +${grouped(Math.round(limit * 100) / 100)} ${unit})` };
    }
    case 'at-least':
      return { limit: target.value, text: `≥ ${grouped(target.value)} ${unit}` };
    case 'at-most':
      return { limit: target.value, text: `≤ ${grouped(target.value)} ${unit}` };
    case 'below':
      return { limit: target.value, text: `< ${grouped(target.value)} ${unit}` };
    case 'below-peer': {
      const peer = m.portkey;
      if (!finite(peer)) return { limit: null, text: '< Portkey', missing: 'Portkey has no figure in this row' };
      return { limit: peer, text: `< Portkey (${grouped(peer)} ${unit})` };
    }
    case 'within-peer-plus': {
      const peer = m.portkey;
      if (!finite(peer)) return { limit: null, text: `≤ Portkey + ${grouped(target.ms)} ${unit}`, missing: 'Portkey has no figure in this row' };
      const limit = r3(peer + target.ms);
      return { limit, text: `≤ Portkey + ${grouped(target.ms)} ${unit} (= ${grouped(limit)} ${unit})` };
    }
  }
}

function verdict(m: Measurement, target: Target, limit: number | null): boolean | null {
  if (limit === null) return null;
  if (m.valid === false || !finite(m.farebox)) return false;
  switch (target.kind) {
    // Judged on the unrounded figures: 2,999 of 5,000 is not 60 %.
    case 'share-of-floor':
      return finite(m.floor) && m.floor > 0 ? m.farebox / m.floor >= limit : null;
    case 'added-over-floor':
      return finite(m.floor) ? m.farebox - m.floor <= limit : null;
    case 'at-least':
      return m.farebox >= limit;
    case 'at-most':
    case 'within-peer-plus':
      return m.farebox <= limit;
    case 'below':
    case 'below-peer':
      return m.farebox < limit;
  }
}

/**
 * Turns raw measurements into report rows: Farebox ÷ floor and ÷ Portkey, Farebox − floor and
 * − Portkey, the target resolved for this run (a target may add another row's figure) and
 * whether it was met (null for context rows, or when a figure it needs is missing).
 */
export function buildReport(measurements: readonly Measurement[]): ReportRow[] {
  const byId = new Map(measurements.map((m) => [m.id, m]));
  return measurements.map((m) => {
    const resolved = m.target ? resolveTarget(m.target, m, byId) : undefined;
    const met = m.target && resolved ? verdict(m, m.target, resolved.limit) : null;
    const note = [m.note, resolved?.missing].filter(Boolean).join('; ');
    return {
      id: m.id,
      scenario: m.scenario,
      unit: m.unit,
      floor: finite(m.floor) ? r3(m.floor) : null,
      farebox: finite(m.farebox) ? r3(m.farebox) : null,
      portkey: finite(m.portkey) ? r3(m.portkey) : null,
      ...(m.portkeyNote ? { portkeyNote: m.portkeyNote } : {}),
      ratio: { fareboxOverFloor: divide(m.farebox, m.floor), fareboxOverPortkey: divide(m.farebox, m.portkey) },
      added: { overFloor: subtract(m.farebox, m.floor), overPortkey: subtract(m.farebox, m.portkey) },
      target: resolved?.text ?? '—',
      limit: resolved?.limit ?? null,
      met,
      steal: m.steal,
      ...(note ? { note } : {}),
    };
  });
}
