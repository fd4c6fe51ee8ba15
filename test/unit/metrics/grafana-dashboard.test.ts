import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { Metrics } from '../../../src/metrics/metrics.js';

const DASHBOARD = fileURLToPath(new URL('../../../scripts/grafana/farebox-dashboard.json', import.meta.url));

/** Series the metric contract names, with their labels: each must be registered just so. */
const CONTRACT: Record<string, readonly string[]> = {
  farebox_requests_total: ['endpoint', 'model', 'provider', 'status'],
  farebox_refusals_total: ['endpoint', 'code'],
  farebox_tokens_total: ['model', 'provider', 'direction'],
  farebox_media_units_total: ['model', 'provider', 'unit'],
  farebox_spend_usd_total: ['model', 'provider'],
  farebox_upstream_errors_total: ['provider', 'code'],
  farebox_request_records_dropped_total: [],
  farebox_ledger_commit_seconds: [],
  farebox_ledger_batch_charges: [],
  farebox_ledger_spooled_charges: [],
};

/** What the dashboard must show (DESIGN §13): one series of each. */
const REQUIRED = [
  'farebox_requests_total',
  'farebox_spend_usd_total',
  'farebox_refusals_total',
  'farebox_upstream_latency_seconds',
  'farebox_queue_jobs',
  'farebox_job_duration_seconds',
  'farebox_ledger_commit_seconds',
  'farebox_ledger_spooled_charges',
  'farebox_event_loop_delay_seconds',
  'farebox_process_resident_memory_bytes',
];

/** Labels Prometheus or the histogram format add to every series. */
const ALWAYS = new Set(['le', 'instance', 'job']);
const HISTOGRAM_SUFFIX = /_(bucket|sum|count)$/;

const metrics = new Metrics({ defaultMetrics: true });
afterAll(() => metrics.eventLoop.stop());

/** Every registered metric with its label names: nothing else counts as known. */
async function knownSeries(): Promise<Map<string, Set<string>>> {
  const known = new Map<string, Set<string>>();
  for (const { name } of await metrics.registry.getMetricsAsJSON()) {
    const labelNames = (metrics.registry.getSingleMetric(name) as unknown as { labelNames?: string[] }).labelNames ?? [];
    known.set(name, new Set(labelNames));
  }
  return known;
}

interface Panel {
  title: string;
  targets?: Array<{ expr: string }>;
}

const panels = (JSON.parse(readFileSync(DASHBOARD, 'utf8')) as { panels: Panel[] }).panels;
const expressions = panels.flatMap((p) => (p.targets ?? []).map((t) => ({ panel: p.title, expr: t.expr })));

/** Metric names in a PromQL expression, histogram series folded to their metric. */
function metricNames(expr: string): string[] {
  return [...expr.matchAll(/\bfarebox_[a-z0-9_]+/g)].map(([name]) => name);
}

/** Label names a PromQL expression groups by or matches on. */
function labelNames(expr: string): string[] {
  const grouped = [...expr.matchAll(/\b(?:by|without)\s*\(([^)]*)\)/g)].flatMap(([, list]) => (list ?? '').split(','));
  const matched = [...expr.matchAll(/\{([^}]*)\}/g)].flatMap(([, body]) => [...(body ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)\s*(?:=~|!~|!=|=)/g)].map((m) => m[1] ?? ''));
  return [...grouped, ...matched].map((l) => l.trim()).filter((l) => l !== '');
}

describe('Grafana dashboard', () => {
  it('has PromQL in every panel', () => {
    expect(panels.length).toBeGreaterThan(0);
    for (const panel of panels) expect(panel.targets?.length, panel.title).toBeGreaterThan(0);
  });

  it('registers every series of the metric contract with its labels', async () => {
    const known = await knownSeries();
    for (const [name, labels] of Object.entries(CONTRACT)) expect(known.get(name), name).toEqual(new Set(labels));
  });

  it('queries only metrics the gateway registers, with their labels', async () => {
    const known = await knownSeries();
    for (const { panel, expr } of expressions) {
      const names = metricNames(expr);
      expect(names.length, `${panel}: ${expr}`).toBeGreaterThan(0);
      const allowed = new Set(ALWAYS);
      for (const name of names) {
        const base = known.has(name) ? name : name.replace(HISTOGRAM_SUFFIX, '');
        expect(known.has(base), `${panel}: unknown metric ${name}`).toBe(true);
        for (const label of known.get(base) ?? []) allowed.add(label);
      }
      for (const label of labelNames(expr)) expect(allowed.has(label), `${panel}: label ${label} not on ${names.join(', ')}`).toBe(true);
    }
  });

  it('shows every series operators scale and alert on', () => {
    const used = new Set(expressions.flatMap(({ expr }) => metricNames(expr).map((n) => n.replace(HISTOGRAM_SUFFIX, ''))));
    for (const name of REQUIRED) expect(used.has(name), name).toBe(true);
  });

  it('catches a misspelt metric (the check can fail)', async () => {
    const known = await knownSeries();
    expect(known.has('farebox_queue_job')).toBe(false);
    expect(known.has('farebox_queue_jobs')).toBe(true);
    expect(known.get('farebox_queue_jobs')).toEqual(new Set(['queue', 'state']));
  });
});
