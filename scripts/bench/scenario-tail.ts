import { fundedAccount, type BenchAccount } from './bench-seed.js';
import { chatBody, chatHeaders } from './chat-requests.js';
import { summarize, type LatencySummary } from './latency-stats.js';
import { pacedLoad } from './paced-load.js';
import { settle, withCpu, type Endpoint, type EndpointName, type ScenarioContext } from './scenario-context.js';
import { diagnose, formatDiagnosis, snapshotWeb, type WebDiagnosis } from './web-diagnostics.js';

/** Seconds of the unmeasured warm-up before each paced run. */
const WARM_UP_SECONDS = 2;

/** The relays of the tail rows: the chat endpoints and side webs with `LEDGER_ACK=local` (and `ADMISSION=leased`). */
export type TailRelay = EndpointName | 'farebox-local' | 'farebox-leased';

/** A chat endpoint of the tail rows; a Farebox one may name its own web process. */
export interface TailEndpoint extends Omit<Endpoint, 'name'> {
  readonly name: TailRelay;
  /** The web process behind it, when not the stack's own. */
  readonly pid?: number;
  /** Keys of the spread accounts of a web with its own database (else the stack's are sent). */
  readonly spreadKeys?: readonly string[];
}

/** True for a Farebox web, in any ledger or admission mode: it is sent the bench keys and watched. */
export function isFarebox(endpoint: TailEndpoint): boolean {
  return endpoint.name === 'farebox' || endpoint.name === 'farebox-local' || endpoint.name === 'farebox-leased';
}

/** One paced (open-loop) run of one endpoint. */
export interface PacedRun {
  rate: number;
  latency: LatencySummary;
  /** How late the generator itself sent (see PacedLoadResult.sendLag). */
  sendLag: LatencySummary;
  achievedRate: number;
  non2xx: number;
  errors: number;
  errorKinds: Record<string, number>;
  /** Farebox only: what its web process did meanwhile. */
  web?: WebDiagnosis;
}

/** Accounts the spread row sends from, one key each. */
export const SPREAD_ACCOUNTS = 50;

/** Funded accounts with one unlimited key each, for the spread row, made through the web at `webUrl`. */
export async function spreadAccounts(ctx: ScenarioContext, webUrl = ctx.stack.webUrl): Promise<BenchAccount[]> {
  const { adminToken, runId } = ctx.stack;
  const accounts: BenchAccount[] = [];
  for (let i = 0; i < SPREAD_ACCOUNTS; i += 10) {
    const names = Array.from({ length: Math.min(10, SPREAD_ACCOUNTS - i) }, (_, j) => `bench-${runId}-spread-${i + j}`);
    accounts.push(...(await Promise.all(names.map((name) => fundedAccount(webUrl, adminToken, name)))));
  }
  return accounts;
}

/**
 * Non-streamed chat sent to `endpoint` at `rate` on an even schedule after a short warm-up,
 * from the given keys in turn (Farebox; the floor and Portkey ignore them). For Farebox the
 * web's metrics and CPU time are read around the measured window.
 */
export async function pacedRun(ctx: ScenarioContext, endpoint: TailEndpoint, rate: number, keys?: readonly string[], label = ''): Promise<PacedRun> {
  const headers = keys && isFarebox(endpoint) ? keys.map(chatHeaders) : endpoint.headers;
  const load = { origin: endpoint.url, path: '/v1/chat/completions', headers, body: chatBody({ stream: false }), rate, connections: 64 };
  await settle(ctx);
  await pacedLoad({ ...load, seconds: WARM_UP_SECONDS });
  await settle(ctx);
  const { adminToken, web } = ctx.stack;
  const pid = endpoint.pid ?? web.pid;
  const before = isFarebox(endpoint) ? await snapshotWeb(endpoint.url, adminToken, pid) : undefined;
  const run = await withCpu(ctx, `${endpoint.name} ${rate} req/s (paced${label})`, () => pacedLoad({ ...load, seconds: ctx.plan.rateSeconds }));
  const diagnosis = before ? diagnose(before, await snapshotWeb(endpoint.url, adminToken, pid), run.latencies.length) : undefined;
  const latency = summarize(run.latencies);
  const sendLag = summarize(run.sendLag);
  ctx.log(`${endpoint.name} at ${rate} req/s (paced${label}): p50 ${latency.p50} p99 ${latency.p99} ms (${run.achievedRate} req/s answered, non-2xx ${run.non2xx}, errors ${run.errors}; generator late p99 ${sendLag.p99} ms)${diagnosis ? `; ${formatDiagnosis(diagnosis)}` : ''}`);
  return { rate, latency, sendLag, achievedRate: run.achievedRate, non2xx: run.non2xx, errors: run.errors, errorKinds: run.errorKinds, ...(diagnosis ? { web: diagnosis } : {}) };
}

