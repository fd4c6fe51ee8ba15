import { TARGET_RATE, TARGETS } from './bench-targets.js';
import { chatBody } from './chat-requests.js';
import { summarize, type LatencySummary } from './latency-stats.js';
import { pacedLoad } from './paced-load.js';
import type { Measurement } from './report-rows.js';
import { brief, chatRequest, runAutocannon } from './scenario-throughput.js';
import { chatEndpoints, measured, portkeyAbsence, settle, withCpu, type Endpoint, type EndpointName, type ScenarioContext, type ScenarioOutput } from './scenario-context.js';

/** Lower rates tried, in order, when the peer cannot keep up with the target rate. */
const LOWER_RATES = [400, 300, 200, 100, 50];
/** Seconds of the unmeasured warm-up before each paced run. */
const WARM_UP_SECONDS = 2;
/** A paced run is sustained when every request got a 2xx and answers kept at least this share of the rate. */
const SUSTAINED_SHARE = 0.95;

/** One paced (open-loop) run: the latency figures that count. */
interface PacedFigures {
  rate: number;
  latency: LatencySummary;
  achievedRate: number;
  sent: number;
  non2xx: number;
  errors: number;
  errorKinds: Record<string, number>;
}

async function paced(ctx: ScenarioContext, endpoint: Endpoint, rate: number): Promise<PacedFigures> {
  const seconds = ctx.plan.rateSeconds;
  const load = { origin: endpoint.url, path: '/v1/chat/completions', headers: endpoint.headers, body: chatBody({ stream: false }), rate, connections: 64 };
  await settle(ctx);
  // A short unmeasured warm-up at the same rate, as the max-throughput rounds have: connections,
  // caches and the JIT of a relay idle since its last load are not what the row is about.
  await pacedLoad({ ...load, seconds: WARM_UP_SECONDS });
  await settle(ctx);
  const run = await withCpu(ctx, `${endpoint.name} ${rate} req/s (paced)`, () =>
    pacedLoad({ ...load, seconds }),
  );
  const latency = summarize(run.latencies);
  ctx.log(`${endpoint.name} at ${rate} req/s (paced): p50 ${latency.p50} p99 ${latency.p99} ms (${run.achievedRate} req/s answered, non-2xx ${run.non2xx}, errors ${run.errors}${run.errors > 0 ? ` ${JSON.stringify(run.errorKinds)}` : ''})`);
  return { rate, latency, achievedRate: run.achievedRate, sent: run.sent, non2xx: run.non2xx, errors: run.errors, errorKinds: run.errorKinds };
}

/** True when the paced run kept up: nothing failed and answers came at (nearly) the rate sent. */
export function sustained(run: Pick<PacedFigures, 'rate' | 'achievedRate' | 'non2xx' | 'errors'>): boolean {
  return run.non2xx === 0 && run.errors === 0 && run.achievedRate >= SUSTAINED_SHARE * run.rate;
}

async function burst(ctx: ScenarioContext, endpoint: Endpoint, rate: number): Promise<Record<string, number>> {
  await settle(ctx);
  const result = await withCpu(ctx, `${endpoint.name} ${rate} req/s (autocannon)`, () =>
    runAutocannon({ ...chatRequest(endpoint), connections: 50, overallRate: rate, duration: ctx.plan.rateSeconds }),
  );
  ctx.log(`${endpoint.name} at ${rate} req/s (autocannon): p99 ${result.latency.p99} ms`);
  return brief(result);
}

/** Every endpoint at `rate`, paced then as an autocannon burst. */
async function atRate(ctx: ScenarioContext, endpoints: readonly Endpoint[], rate: number): Promise<Partial<Record<EndpointName, { paced: PacedFigures; autocannon: Record<string, number> }>>> {
  const out: Partial<Record<EndpointName, { paced: PacedFigures; autocannon: Record<string, number> }>> = {};
  for (const endpoint of endpoints) out[endpoint.name] = { paced: await paced(ctx, endpoint, rate), autocannon: await burst(ctx, endpoint, rate) };
  return out;
}

/**
 * The highest of the lower rates the peer sustains (paced), or the last one tried. Rates well
 * above what it answered at the target rate are skipped.
 */
async function highestSustained(ctx: ScenarioContext, peer: Endpoint, failed: PacedFigures): Promise<PacedFigures[]> {
  const tried: PacedFigures[] = [];
  const candidates = LOWER_RATES.filter((r) => r < failed.rate);
  const within = candidates.findIndex((r) => r <= 1.1 * failed.achievedRate);
  const first = within === -1 ? candidates.length - 1 : within;
  for (const rate of candidates.slice(first)) {
    const run = await paced(ctx, peer, rate);
    tried.push(run);
    if (sustained(run)) break;
  }
  return tried;
}

/** A paced row is judged only when the floor and Farebox both kept up with the rate. */
function keptUp(figures: Figures, rate: number): Partial<Measurement> {
  const behind = (['floor', 'farebox'] as const).filter((name) => figures[name] && !sustained(figures[name].paced));
  if (behind.length === 0) return {};
  const said = behind.map((name) => `${name} ${figures[name]?.paced.achievedRate} req/s answered, ${figures[name]?.paced.errors} errors ${JSON.stringify(figures[name]?.paced.errorKinds ?? {})}`).join('; ');
  return { ...(behind.includes('farebox') ? { valid: false } : {}), note: `not sustained at ${rate} req/s: ${said}` };
}

type Figures = Partial<Record<EndpointName, { paced: PacedFigures; autocannon: Record<string, number> }>>;

function p99(figures: Figures, name: EndpointName, tool: 'paced' | 'autocannon'): number | null {
  const entry = figures[name];
  if (!entry) return null;
  return tool === 'paced' ? entry.paced.latency.p99 : (entry.autocannon.latencyP99Ms ?? null);
}

/**
 * Non-streamed chat at a fixed rate (DESIGN §9: p99 added over the bare proxy at 500 req/s,
 * paced, ≤ 2 ms + the lone durable commit p99 of the same run). The paced open-loop generator
 * is the figure of record; autocannon's burst-per-second rate is a second figure. When Portkey
 * cannot sustain the rate, all three are also measured at the highest rate it does sustain.
 */
export async function ratesScenario(ctx: ScenarioContext): Promise<ScenarioOutput> {
  const rate = TARGET_RATE;
  const endpoints = chatEndpoints(ctx);
  const peer = endpoints.find((e) => e.name === 'portkey');
  const { value: figures, steal } = await measured(ctx, `${rate} req/s`, () => atRate(ctx, endpoints, rate));
  const peerRun = figures.portkey?.paced;
  const peerKeptUp = peerRun === undefined || sustained(peerRun);
  const absent = portkeyAbsence(ctx);
  const peerNote = absent ?? (peerKeptUp ? undefined : `not sustained: ${peerRun?.achievedRate} req/s answered (p99 ${peerRun?.latency.p99} ms), ${peerRun?.non2xx} non-2xx, ${peerRun?.errors} errors`);
  const rows: Measurement[] = [
    {
      id: 'chat-p99-paced',
      scenario: `chat p99 at ${rate} req/s (paced)`,
      unit: 'ms',
      floor: p99(figures, 'floor', 'paced'),
      farebox: p99(figures, 'farebox', 'paced'),
      portkey: peerKeptUp ? p99(figures, 'portkey', 'paced') : null,
      ...(peerNote ? { portkeyNote: peerNote } : {}),
      target: TARGETS.p99Paced,
      ...keptUp(figures, rate),
      steal,
    },
    { id: 'chat-p99-autocannon', scenario: `chat p99 at ${rate} req/s (autocannon burst)`, unit: 'ms', floor: p99(figures, 'floor', 'autocannon'), farebox: p99(figures, 'farebox', 'autocannon'), portkey: p99(figures, 'portkey', 'autocannon'), ...(absent ? { portkeyNote: absent } : {}), steal },
  ];
  const details: Record<string, unknown> = { [rate]: figures };
  if (peer && !peerKeptUp) {
    const { value: lower, steal: lowerSteal } = await measured(ctx, 'Portkey at a lower rate', async () => {
      const tried = await highestSustained(ctx, peer, peerRun as PacedFigures);
      const at = tried[tried.length - 1] as PacedFigures;
      const others = await atRate(ctx, endpoints.filter((e) => e.name !== 'portkey'), at.rate);
      return { tried, at, others };
    });
    const kept = sustained(lower.at);
    details.portkeyLowerRates = lower;
    rows.push({
      id: 'chat-p99-paced-peer-rate',
      scenario: `chat p99 at ${lower.at.rate} req/s (paced; Portkey's rate)`,
      unit: 'ms',
      floor: p99(lower.others, 'floor', 'paced'),
      farebox: p99(lower.others, 'farebox', 'paced'),
      portkey: lower.at.latency.p99,
      portkeyNote: kept ? `highest rate sustained of ${[rate, ...LOWER_RATES].join('/')}` : `not sustained even at ${lower.at.rate} req/s`,
      ...keptUp(lower.others, lower.at.rate),
      steal: lowerSteal,
    });
  }
  return { rows, details };
}
