import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { findFreePort } from '../services/free-port.js';
import { dropBenchData } from './bench-cleanup.js';
import { waitHttpReady } from './bench-processes.js';
import { admin, BENCH_CHAT_MODEL, seedBench, type BenchAccount } from './bench-seed.js';
import { NOT_MEASURED } from './bench-targets.js';
import { chatBody, chatHeaders } from './chat-requests.js';
import { summarize } from './latency-stats.js';
import type { Measurement } from './report-rows.js';
import type { ScenarioContext, ScenarioOutput } from './scenario-context.js';
import { startSideWeb } from './side-web.js';

/** How the first route of a model fails, and the mock path (or address) that fails that way. */
interface FailureKind {
  id: string;
  label: string;
  /** `/fail/<kind>` on the mock, or `refused` for an address nothing listens on. */
  fails: string;
}

const KINDS: readonly FailureKind[] = [
  { id: '429', label: '429', fails: '429' },
  { id: '500', label: '500', fails: '500' },
  { id: '503', label: '503', fails: '503' },
  { id: '529', label: '529', fails: '529' },
  { id: 'reset', label: 'reset before headers', fails: 'reset' },
  { id: 'refused', label: 'connect refused', fails: 'refused' },
  { id: 'stall', label: 'no first byte (1 s timeout)', fails: 'stall' },
  { id: 'key-401', label: 'key refused (401), then set aside', fails: '401' },
];

/** First-byte timeout of the failover web: a stall costs exactly this, so it is kept short. */
const FIRST_BYTE_TIMEOUT_MS = 1_000;
/** Unmeasured pairs before each kind (pools, JIT, the 401 key being set aside). */
const WARM_UP_PAIRS = 5;

/** One non-streamed chat call; its time and the provider that answered it. */
async function timedCall(url: string, key: string, model: string): Promise<{ ms: number; provider: string | undefined; status: number }> {
  const body = chatBody({ stream: false, model });
  const started = performance.now();
  const res = await fetch(`${url}/v1/chat/completions`, { method: 'POST', headers: chatHeaders(key), body, signal: AbortSignal.timeout(30_000) });
  const answer = (await res.json()) as { provider?: string };
  return { ms: performance.now() - started, provider: answer.provider, status: res.status };
}

/** The bench's providers plus one failing provider per kind, each pointed at its failure. */
async function writeProviders(ctx: ScenarioContext): Promise<string> {
  const file = path.join(ctx.stack.logDir, 'providers-failover.json');
  const base = JSON.parse(readFileSync(path.join(ctx.stack.logDir, 'providers.json'), 'utf8')) as unknown[];
  const closedPort = await findFreePort();
  const failing = KINDS.map((k) => ({
    id: `fail-${k.id}`,
    kind: 'openai',
    base_url: k.fails === 'refused' ? `http://127.0.0.1:${closedPort}/v1` : `${ctx.stack.mockUrl}/fail/${k.fails}/v1`,
    api_key_env: 'BENCH_UPSTREAM_KEY',
  }));
  writeFileSync(file, JSON.stringify([...base, ...failing]));
  return file;
}

/** A model per kind whose first route fails that way and whose second is the mock's. */
async function seedModels(url: string, token: string): Promise<void> {
  for (const k of KINDS) {
    await admin(url, token, 'PUT', `/v1/admin/models/bench/failover-${k.id}`, {
      name: `Bench failover after ${k.label}`,
      kind: 'chat',
      pricing: { prompt: '0.000001', completion: '0.000002' },
      capabilities: [],
      context_length: 32_768,
      routes: [
        { provider: `fail-${k.id}`, upstream_model: 'bench-fast' },
        { provider: 'openai', upstream_model: 'bench-fast' },
      ],
    });
  }
}

/**
 * Added latency of one kind: pairs of calls, the second route's model alone and the model whose
 * first route fails, interleaved so machine noise hits both alike. Every failover call must be
 * answered 200 by the second route.
 */
async function measureKind(url: string, account: BenchAccount, kind: FailureKind, samples: number): Promise<{ alone: number[]; failover: number[]; wrong: number }> {
  const alone: number[] = [];
  const failover: number[] = [];
  let wrong = 0;
  for (let i = 0; i < WARM_UP_PAIRS + samples; i++) {
    const a = await timedCall(url, account.key, BENCH_CHAT_MODEL);
    const f = await timedCall(url, account.key, `bench/failover-${kind.id}`);
    if (i < WARM_UP_PAIRS) continue;
    if (a.status !== 200 || f.status !== 200 || f.provider !== 'openai') wrong += 1;
    alone.push(a.ms);
    failover.push(f.ms);
  }
  return { alone, failover, wrong };
}

/**
 * What a failover before the first byte adds, per failure kind (DESIGN §9): a web of its own
 * (own database and Redis prefix, first-byte timeout 1 s, circuit breaker off so every call
 * meets the failure instead of skipping the route), sequential non-streamed calls.
 */
export async function failoverScenario(ctx: ScenarioContext): Promise<ScenarioOutput> {
  const { stack } = ctx;
  const { url, proc, env } = await startSideWeb(ctx, 'failover', {
    PROVIDERS_FILE: await writeProviders(ctx),
    UPSTREAM_FIRST_BYTE_TIMEOUT_MS: String(FIRST_BYTE_TIMEOUT_MS),
    ROUTE_BREAKER_FAILURES: '1000000',
  });
  const samples = ctx.plan.failoverSamples;
  const rows: Measurement[] = [];
  const details: Record<string, unknown> = { samples, firstByteTimeoutMs: FIRST_BYTE_TIMEOUT_MS };
  try {
    await waitHttpReady(`${url}/readyz`, proc, 90_000);
    const account = await seedBench(url, stack.adminToken, `${stack.runId}-failover`);
    await seedModels(url, stack.adminToken);
    for (const kind of KINDS) {
      const { alone, failover, wrong } = await measureKind(url, account, kind, samples);
      const [a, f] = [summarize(alone), summarize(failover)];
      ctx.log(`failover after ${kind.label}: p50 ${f.p50} ms (second route alone ${a.p50} ms), p99 ${f.p99} ms (alone ${a.p99} ms), ${wrong} not answered by the second route`);
      details[kind.id] = { alone: a, failover: f, wrong };
      rows.push({
        id: `failover-${kind.id}-p50`,
        scenario: `chat p50 with failover after ${kind.label}`,
        unit: 'ms',
        floor: a.p50,
        farebox: f.p50,
        portkey: null,
        portkeyNote: NOT_MEASURED,
        ...(wrong > 0 ? { valid: false, note: `${wrong} of ${samples} failover calls were not answered 200 by the second route` } : {}),
        steal: null,
      });
    }
  } finally {
    await stack.group.stop(proc.name);
    await dropBenchData(stack.services, env.MONGODB_DB ?? '', env.REDIS_PREFIX ?? '').catch((err: unknown) => ctx.log(`cleanup of failover data failed: ${String(err)}`));
  }
  return { rows, details };
}
