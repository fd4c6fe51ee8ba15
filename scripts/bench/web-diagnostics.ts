import { round3 } from './latency-stats.js';
import { cpuSeconds } from './proc-stats.js';

/** One metric sample: its name, labels and value. */
interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Reads the Prometheus text format's sample lines (comments and blank lines skipped). */
function parseSamples(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line);
    if (!match?.[1] || match[3] === undefined) continue;
    const labels: Record<string, string> = {};
    for (const pair of (match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[pair[1] as string] = pair[2] as string;
    samples.push({ name: match[1], labels, value: Number(match[3]) });
  }
  return samples;
}

/** What the web process told about itself at one moment. */
export interface WebSnapshot {
  samples: Sample[];
  cpuSeconds: number;
}

/** Scrapes the web's `/metrics` (the scrape also restarts its event-loop delay window) and reads its CPU time. */
export async function snapshotWeb(webUrl: string, adminToken: string, pid: number): Promise<WebSnapshot> {
  const res = await fetch(`${webUrl}/metrics`, { headers: { authorization: `Bearer ${adminToken}` }, signal: AbortSignal.timeout(10_000) });
  if (res.status !== 200) throw new Error(`GET /metrics answered ${res.status}`);
  return { samples: parseSamples(await res.text()), cpuSeconds: cpuSeconds(pid) ?? Number.NaN };
}

function value(snapshot: WebSnapshot, name: string, labels: Record<string, string> = {}): number {
  const hit = snapshot.samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  return hit.reduce((sum, s) => sum + s.value, 0);
}

/** Cumulative bucket counts (`le` → count) of a histogram between two snapshots. */
function bucketDeltas(before: WebSnapshot, after: WebSnapshot, name: string): Array<[number, number]> {
  const buckets = after.samples.filter((s) => s.name === `${name}_bucket`);
  return buckets
    .map((s): [number, number] => [Number(s.labels.le === '+Inf' ? Infinity : s.labels.le), s.value - value(before, `${name}_bucket`, { le: s.labels.le ?? '' })])
    .sort((a, b) => a[0] - b[0]);
}

/** The upper bound of the bucket holding the p-th percentile (a histogram cannot say more). */
function bucketPercentile(buckets: ReadonlyArray<[number, number]>, p: number): number | null {
  const total = buckets[buckets.length - 1]?.[1] ?? 0;
  if (total === 0) return null;
  const hit = buckets.find(([, count]) => count >= (p / 100) * total);
  return hit ? hit[0] : null;
}

/** What the web did during one measured window, from its own metrics and CPU time. */
export interface WebDiagnosis {
  /** CPU time of the web per answered request, ms. */
  cpuMsPerRequest: number | null;
  /** Group-commit batches and the mean charges in each. */
  ledgerBatches: number;
  chargesPerBatch: number | null;
  /** Upper bounds of the commit-time buckets holding p50 and p99, ms. */
  commitP50Ms: number | null;
  commitP99Ms: number | null;
  /** Event-loop delay over the window (10 ms resolution), ms. */
  loopDelayP99Ms: number;
  loopDelayMaxMs: number;
}

/** Compares two snapshots taken around a window in which `requests` were answered. */
export function diagnose(before: WebSnapshot, after: WebSnapshot, requests: number): WebDiagnosis {
  const batches = value(after, 'farebox_ledger_batch_charges_count') - value(before, 'farebox_ledger_batch_charges_count');
  const charges = value(after, 'farebox_ledger_batch_charges_sum') - value(before, 'farebox_ledger_batch_charges_sum');
  const commits = bucketDeltas(before, after, 'farebox_ledger_commit_seconds');
  const ms = (seconds: number | null): number | null => (seconds === null ? null : round3(seconds * 1000));
  return {
    cpuMsPerRequest: requests > 0 ? round3(((after.cpuSeconds - before.cpuSeconds) * 1000) / requests) : null,
    ledgerBatches: batches,
    chargesPerBatch: batches > 0 ? round3(charges / batches) : null,
    commitP50Ms: ms(bucketPercentile(commits, 50)),
    commitP99Ms: ms(bucketPercentile(commits, 99)),
    loopDelayP99Ms: round3(value(after, 'farebox_event_loop_delay_seconds', { stat: 'p99' }) * 1000),
    loopDelayMaxMs: round3(value(after, 'farebox_event_loop_delay_seconds', { stat: 'max' }) * 1000),
  };
}

/** One line for the bench log. */
export function formatDiagnosis(d: WebDiagnosis): string {
  return `web ${d.cpuMsPerRequest} ms CPU/request; ${d.ledgerBatches} ledger batches of ${d.chargesPerBatch} charges, commit p50 ≤ ${d.commitP50Ms} p99 ≤ ${d.commitP99Ms} ms; event-loop delay p99 ${d.loopDelayP99Ms} max ${d.loopDelayMaxMs} ms`;
}
