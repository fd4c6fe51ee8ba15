import { Agent } from 'node:http';
import { absoluteRow, addedRow, type ResultRow } from './bench-report.js';
import { chatBody, completeStream, timedStream } from './chat-requests.js';
import { summarize, timedPool, type LatencySummary } from './latency-stats.js';
import { withCpu, type ScenarioContext, type ScenarioOutput } from './scenario-context.js';

/** Chunks of the relayed stream in the memory scenario. */
const RELAY_CHUNKS = 100;
/** Streams relayed at once in the memory scenario. */
const RELAY_CONCURRENCY = 16;

interface TtfbResult {
  ttfb: LatencySummary;
  total: LatencySummary;
  incomplete: number;
  /** Connections the mock accepted per timed stream (0 when the relay reuses its pool). */
  upstreamConnectionsPerStream: number;
}

async function upstreamConnections(ctx: ScenarioContext): Promise<number> {
  const res = await fetch(`${ctx.stack.mockUrl}/control/stats`);
  return ((await res.json()) as { connections: number }).connections;
}

/** Sequential streams over one kept-alive connection: time to the first body byte. */
async function ttfbOf(ctx: ScenarioContext, url: string, billed: boolean, model?: string): Promise<TtfbResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const body = chatBody({ stream: true, chunks: 10, gapMs: 0, ...(model === undefined ? {} : { model }) });
  const key = ctx.stack.account.key;
  try {
    for (let i = 0; i < 30; i++) await timedStream(agent, url, key, body);
    const ttfb: number[] = [];
    const total: number[] = [];
    let incomplete = 0;
    const connectionsBefore = await upstreamConnections(ctx);
    for (let i = 0; i < ctx.plan.ttfbSamples; i++) {
      const timing = await timedStream(agent, url, key, body);
      ttfb.push(timing.ttfbMs);
      total.push(timing.totalMs);
      if (timing.status !== 200 || !completeStream(timing.text, billed)) incomplete += 1;
    }
    const opened = (await upstreamConnections(ctx)) - connectionsBefore;
    return { ttfb: summarize(ttfb), total: summarize(total), incomplete, upstreamConnectionsPerStream: opened / ctx.plan.ttfbSamples };
  } finally {
    agent.destroy();
  }
}

/** Stream time to first byte, floor vs Farebox (DESIGN §9: ≤ 1 ms over the bare proxy). */
export async function ttfbScenario(ctx: ScenarioContext): Promise<ScenarioOutput> {
  const floor = await withCpu(ctx, 'floor stream TTFB', () => ttfbOf(ctx, ctx.stack.floorUrl, false));
  const farebox = await withCpu(ctx, 'farebox stream TTFB', () => ttfbOf(ctx, ctx.stack.webUrl, true));
  // The built-in echo model has no upstream hop: what is left is the gateway's own path.
  const echo = await withCpu(ctx, 'farebox stream TTFB (local/echo)', () => ttfbOf(ctx, ctx.stack.webUrl, true, 'local/echo'));
  ctx.log(`stream TTFB p50: floor ${floor.ttfb.p50} ms, farebox ${farebox.ttfb.p50} ms, local/echo ${echo.ttfb.p50} ms (incomplete: ${floor.incomplete}/${farebox.incomplete}/${echo.incomplete}; upstream connections per stream: floor ${floor.upstreamConnectionsPerStream}, farebox ${farebox.upstreamConnectionsPerStream})`);
  const rows: ResultRow[] = [
    addedRow('stream TTFB p50', 'ms', floor.ttfb.p50, farebox.ttfb.p50, 1, '≤ +1 ms'),
    addedRow('stream TTFB p99', 'ms', floor.ttfb.p99, farebox.ttfb.p99, null, '—'),
    absoluteRow('stream TTFB p50, local/echo (no upstream)', 'ms', echo.ttfb.p50, null, '—'),
  ];
  return { rows, details: { chunks: 10, floor, farebox, localEcho: echo } };
}

/** Memory of the web process after a full GC, as its probe reports it (see web-probe). */
interface WebMemory {
  rss: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
  arrayBuffers: number;
  gc: boolean;
}

async function webMemory(ctx: ScenarioContext): Promise<WebMemory> {
  const web = ctx.stack.web;
  const from = web.logSize();
  web.signal('SIGUSR2');
  const line = await web.waitForLine(/^BENCH_MEMORY /, 10_000, from);
  return JSON.parse(line.slice('BENCH_MEMORY '.length)) as WebMemory;
}

async function relay(ctx: ScenarioContext, count: number): Promise<number> {
  const agent = new Agent({ keepAlive: true, maxSockets: RELAY_CONCURRENCY });
  const body = chatBody({ stream: true, chunks: RELAY_CHUNKS, gapMs: 0 });
  let incomplete = 0;
  try {
    await timedPool(count, RELAY_CONCURRENCY, async () => {
      const timing = await timedStream(agent, ctx.stack.webUrl, ctx.stack.account.key, body);
      if (timing.status !== 200 || !completeStream(timing.text, true)) incomplete += 1;
    });
  } finally {
    agent.destroy();
  }
  return incomplete;
}

/**
 * A 100-chunk stream relayed many times: retained heap after a full GC is read after a warm-up
 * and after each of two equal rounds. Anything kept per chunk (or per stream) shows as growth
 * that scales with the chunks relayed; the target is under one byte per relayed chunk.
 */
export async function relayScenario(ctx: ScenarioContext): Promise<ScenarioOutput> {
  const rounds = ctx.plan.relayStreams;
  const warmIncomplete = await relay(ctx, Math.max(300, Math.round(rounds / 5)));
  const before = await webMemory(ctx);
  const started = performance.now();
  const firstIncomplete = await withCpu(ctx, 'farebox 100-chunk relay', () => relay(ctx, rounds));
  const middle = await webMemory(ctx);
  const secondIncomplete = await relay(ctx, rounds);
  const after = await webMemory(ctx);
  const seconds = (performance.now() - started) / 1000;
  const chunks = 2 * rounds * RELAY_CHUNKS;
  const perChunk = (after.heapUsed - before.heapUsed) / chunks;
  ctx.log(`relay: heap ${before.heapUsed} → ${middle.heapUsed} → ${after.heapUsed} bytes over ${chunks} chunks (${perChunk.toFixed(3)} B/chunk), rss ${before.rss} → ${after.rss}`);
  const rows: ResultRow[] = [
    absoluteRow('100-chunk relay: heap growth/chunk', 'B', perChunk, perChunk < 1 && before.gc, '< 1 B/chunk'),
    absoluteRow('100-chunk relay: web RSS growth', 'MB', (after.rss - before.rss) / 2 ** 20, null, '—'),
  ];
  const incomplete = warmIncomplete + firstIncomplete + secondIncomplete;
  return { rows, details: { streamsPerRound: rounds, chunksPerStream: RELAY_CHUNKS, chunksRelayed: chunks, seconds, incomplete, memory: { before, middle, after }, heapGrowthPerChunkBytes: perChunk } };
}
