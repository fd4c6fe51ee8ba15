// @ts-check
import { h, table, usd } from './dom.js';

/** @typedef {{ date: string, model: string, requests: number, cost_usd: number, input_tokens?: number, output_tokens?: number }} UsageRow */

const COLORS = ['#2563eb', '#dc2626', '#16a34a', '#9333ea', '#ea580c', '#0891b2', '#ca8a04', '#db2777'];

const DAY_MS = 86_400_000;

/**
 * Every UTC day from the earliest of (today − 29 days, the first day with usage) to the later of
 * today and the last day, so days without usage show as zero instead of being skipped.
 * @param {string[]} dates
 */
function dayRange(dates) {
  const today = Date.parse(`${new Date().toISOString().slice(0, 10)}T00:00:00Z`);
  const times = dates.map((d) => Date.parse(`${d}T00:00:00Z`));
  const start = Math.min(today - 29 * DAY_MS, ...times);
  const end = Math.max(today, ...times);
  const days = [];
  for (let t = start; t <= end; t += DAY_MS) days.push(new Date(t).toISOString().slice(0, 10));
  return days;
}

/**
 * Pivots usage rows into one series per model over the days present.
 * @param {UsageRow[]} rows
 * @param {'cost_usd' | 'requests'} field
 */
export function pivot(rows, field) {
  const days = dayRange(rows.map((r) => r.date));
  const models = [...new Set(rows.map((r) => r.model))].sort();
  const series = models.map((model) => days.map((day) => rows.filter((r) => r.date === day && r.model === model).reduce((sum, r) => sum + r[field], 0)));
  return { days, models, series };
}

/**
 * Short USD for an axis tick ($0, $0.05, $1.20).
 * @param {number} v
 */
function axisUsd(v) {
  return v === 0 ? '$0' : Math.abs(v) >= 1 ? `$${v.toFixed(2)}` : `$${Number(v.toPrecision(2))}`;
}

/**
 * One uPlot chart of a field per day, a line per model.
 * @param {string} title
 * @param {UsageRow[]} rows
 * @param {'cost_usd' | 'requests'} field
 */
function chart(title, rows, field) {
  const { days, models, series } = pivot(rows, field);
  const box = h('figure', { class: 'chart', 'data-testid': `chart-${field}`, 'data-models': models.join(','), 'data-total': String(series.flat().reduce((a, b) => a + b, 0)) }, h('figcaption', {}, title));
  // uPlot comes as a classic script (a global); the page still shows the table without it.
  const uPlot = /** @type {{ uPlot?: typeof import('uplot') }} */ (/** @type {unknown} */ (globalThis)).uPlot;
  if (!uPlot) return box;
  const xs = days.map((d) => Date.parse(`${d}T00:00:00Z`) / 1000);
  /** @type {import('uplot').Options} */
  const opts = {
    width: 520,
    height: 220,
    legend: { live: false },
    scales: { x: { time: true } },
    series: [{}, ...models.map((model, i) => ({ label: model, stroke: COLORS[i % COLORS.length], width: 2, points: { size: 6 }, value: (/** @type {import('uplot')} */ _u, /** @type {number | null} */ v) => (v == null ? '—' : field === 'cost_usd' ? usd(v) : String(v)) }))],
    axes: [{}, { size: 84, values: (_u, ticks) => ticks.map((v) => (field === 'cost_usd' ? axisUsd(v) : String(v))) }],
  };
  // uPlot renders once the figure is in the document and sized.
  queueMicrotask(() => new uPlot(opts, [xs, ...series], box));
  return box;
}

/**
 * Usage charts (spend and requests per day by model) with the figures in a table beside them.
 * @param {UsageRow[]} rows
 */
export function usageView(rows) {
  if (!rows.length) return h('p', { class: 'muted', 'data-testid': 'usage-empty' }, 'No usage in this period.');
  const sorted = [...rows].sort((a, b) => (a.date === b.date ? a.model.localeCompare(b.model) : b.date.localeCompare(a.date)));
  return h(
    'div',
    { class: 'usage' },
    h('div', { class: 'charts' }, chart('Spend per day (USD)', rows, 'cost_usd'), chart('Requests per day', rows, 'requests')),
    h('div', { class: 'scroll' }, table(
      [
        { title: 'Day', cell: (r) => r.date },
        { title: 'Model', cell: (r) => r.model },
        { title: 'Requests', cell: (r) => r.requests, className: 'num' },
        { title: 'Tokens in/out', cell: (r) => `${r.input_tokens ?? 0} / ${r.output_tokens ?? 0}`, className: 'num' },
        { title: 'Spend', cell: (r) => usd(r.cost_usd), className: 'num' },
      ],
      sorted,
      { testid: 'usage-table' },
    )),
  );
}

/**
 * The end-user filter of a usage card: the id clients send as `user` (empty: every end user).
 * Usage and recent requests both narrow to it on the next refresh.
 */
export function endUserFilter() {
  return /** @type {HTMLInputElement} */ (h('input', { name: 'end_user', type: 'search', maxlength: 256, placeholder: 'End user (all)', 'data-testid': 'usage-end-user' }));
}

/**
 * Recent requests as a table.
 * @param {{ id: string, key_id: string, end_user?: string | null, model: string, endpoint: string, status: number, cost_usd: number, latency_ms: number, created_at: string, usage?: { input_tokens?: number, output_tokens?: number } }[]} records
 */
export function requestsView(records) {
  return table(
    [
      { title: 'When', cell: (r) => r.created_at.replace('T', ' ').slice(0, 19) },
      { title: 'Request id', cell: (r) => h('code', {}, r.id) },
      { title: 'Key', cell: (r) => h('code', {}, r.key_id) },
      { title: 'End user', cell: (r) => r.end_user ?? '' },
      { title: 'Model', cell: (r) => r.model },
      { title: 'Status', cell: (r) => r.status, className: 'num' },
      { title: 'Tokens', cell: (r) => `${r.usage?.input_tokens ?? 0} / ${r.usage?.output_tokens ?? 0}`, className: 'num' },
      { title: 'Latency', cell: (r) => `${r.latency_ms} ms`, className: 'num' },
      { title: 'Cost', cell: (r) => usd(r.cost_usd), className: 'num' },
    ],
    records,
    { testid: 'requests-table', empty: 'No requests yet.' },
  );
}

/**
 * Fills a container with the result of a loader, or a note when it fails (for example when
 * MongoDB is unreachable), so one missing panel does not blank the page.
 * @param {HTMLElement} container
 * @param {() => Promise<Node>} load
 */
export async function fillPanel(container, load) {
  container.replaceChildren(h('p', { class: 'muted' }, 'Loading…'));
  try {
    container.replaceChildren(await load());
  } catch (err) {
    container.replaceChildren(h('p', { class: 'muted error-text' }, `Unavailable: ${err instanceof Error ? err.message : String(err)}`));
  }
}
