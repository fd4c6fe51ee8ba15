import { Agent } from 'node:http';
import { NO_EQUIVALENT, NOT_MEASURED, TARGETS } from './bench-targets.js';
import { chatBody, chatHeaders, completeStream, timedStream } from './chat-requests.js';
import { summarize, timedPool, type LatencySummary } from './latency-stats.js';
import { lastErrorLine, type Peer } from './peer-portkey.js';
import type { Measurement } from './report-rows.js';
import { chatEndpoints, measured, portkeyAbsence, settle, withCpu, type Endpoint, type ScenarioContext, type ScenarioOutput } from './scenario-context.js';
import { relayNode } from './relay-node.js';

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
async function ttfbOf(ctx: ScenarioContext, endpoint: Endpoint, billed: boolean, model?: string): Promise<TtfbResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const body = chatBody({ stream: true, chunks: 10, gapMs: 0, ...(model === undefined ? {} : { model }) });
  try {
    for (let i = 0; i < 30; i++) await timedStream(agent, endpoint.url, endpoint.headers, body);
    const ttfb: number[] = [];
    const total: number[] = [];
    let incomplete = 0;
    const connectionsBefore = await upstreamConnections(ctx);
    for (let i = 0; i < ctx.plan.ttfbSamples; i++) {
      const timing = await timedStream(agent, endpoint.url, endpoint.headers, body);
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

/** One stream through the peer; undefined when it came back whole, else what went wrong. */
async function peerStreamProblem(peer: Peer, endpoint: Endpoint): Promise<string | undefined> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const timing = await timedStream(agent, endpoint.url, endpoint.headers, chatBody({ stream: true, chunks: 10, gapMs: 0 }));
    if (timing.status === 200 && completeStream(timing.text, false)) return undefined;
    const logged = lastErrorLine(peer);
    return `HTTP ${timing.status} ${timing.text.slice(0, 120).trim()}${logged ? `; its log: ${logged.slice(0, 200)}` : ''} (node ${relayNode().version})`;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  } finally {
    agent.destroy();
  }
}

async function ttfbAll(ctx: ScenarioContext): Promise<{ floor: TtfbResult; farebox: TtfbResult; echo: TtfbResult; portkey?: TtfbResult; portkeyProblem?: string }> {
  const [floorEndpoint, fareboxEndpoint, peerEndpoint] = chatEndpoints(ctx);
  await settle(ctx);
  const floor = await withCpu(ctx, 'floor stream TTFB', () => ttfbOf(ctx, floorEndpoint as Endpoint, false));
  const farebox = await withCpu(ctx, 'farebox stream TTFB', () => ttfbOf(ctx, fareboxEndpoint as Endpoint, true));
  // The built-in echo model has no upstream hop: what is left is the gateway's own path.
  const echo = await withCpu(ctx, 'farebox stream TTFB (local/echo)', () => ttfbOf(ctx, fareboxEndpoint as Endpoint, true, 'local/echo'));
  const { portkey: peer } = ctx.stack;
  if (!peerEndpoint || 'failed' in peer) return { floor, farebox, echo };
  const portkeyProblem = await peerStreamProblem(peer, peerEndpoint);
  if (portkeyProblem) return { floor, farebox, echo, portkeyProblem };
  const portkey = await withCpu(ctx, 'portkey stream TTFB', () => ttfbOf(ctx, peerEndpoint, false));
  return { floor, farebox, echo, portkey };
}

/** Stream time to first byte, floor vs Farebox vs Portkey (DESIGN §9: ≤ 1 ms over the bare proxy). */
export async function ttfbScenario(ctx: ScenarioContext): Promise<ScenarioOutput> {
  const { value: r, steal } = await measured(ctx, 'stream TTFB', () => ttfbAll(ctx));
  ctx.log(`stream TTFB p50: floor ${r.floor.ttfb.p50} ms, farebox ${r.farebox.ttfb.p50} ms, local/echo ${r.echo.ttfb.p50} ms, portkey ${r.portkey?.ttfb.p50 ?? r.portkeyProblem ?? 'absent'} (incomplete: ${r.floor.incomplete}/${r.farebox.incomplete}/${r.echo.incomplete}/${r.portkey?.incomplete ?? '-'}; upstream connections per stream: floor ${r.floor.upstreamConnectionsPerStream}, farebox ${r.farebox.upstreamConnectionsPerStream})`);
  const peerNote = portkeyAbsence(ctx) ?? (r.portkeyProblem ? 'fails to stream (see note)' : undefined);
  const note = r.portkeyProblem ? `Portkey's stream failed: ${r.portkeyProblem}` : undefined;
  const common = { unit: 'ms', steal, ...(peerNote ? { portkeyNote: peerNote } : {}) };
  const rows: Measurement[] = [
    { id: 'stream-ttfb-p50', scenario: 'stream TTFB p50', floor: r.floor.ttfb.p50, farebox: r.farebox.ttfb.p50, portkey: r.portkey?.ttfb.p50 ?? null, target: TARGETS.ttfb, ...(r.farebox.incomplete > 0 ? { valid: false } : {}), ...(note ? { note } : {}), ...common },
    { id: 'stream-ttfb-p99', scenario: 'stream TTFB p99', floor: r.floor.ttfb.p99, farebox: r.farebox.ttfb.p99, portkey: r.portkey?.ttfb.p99 ?? null, ...common },
    { id: 'stream-ttfb-echo', scenario: 'stream TTFB p50, local/echo (no upstream)', unit: 'ms', floor: null, farebox: r.echo.ttfb.p50, portkey: null, portkeyNote: NO_EQUIVALENT, steal },
  ];
  return { rows, details: { chunks: 10, floor: r.floor, farebox: r.farebox, localEcho: r.echo, portkey: r.portkey ?? { problem: r.portkeyProblem ?? portkeyAbsence(ctx) } } };
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
      const timing = await timedStream(agent, ctx.stack.webUrl, chatHeaders(ctx.stack.account.key), body);
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
  const { value, steal } = await measured(ctx, '100-chunk relay', () => relayRounds(ctx));
  const { perChunk, incomplete, memory } = value;
  const { before, after } = memory;
  const rows: Measurement[] = [
    { id: 'relay-heap-per-chunk', scenario: '100-chunk relay: heap growth/chunk', unit: 'B', floor: null, farebox: perChunk, portkey: null, portkeyNote: NOT_MEASURED, target: TARGETS.relayHeapPerChunk, ...(before.gc && incomplete === 0 ? {} : { valid: false, note: before.gc ? `${incomplete} streams incomplete` : 'no forced GC in the web process' }), steal },
    { id: 'relay-rss-growth', scenario: '100-chunk relay: web RSS growth', unit: 'MB', floor: null, farebox: (after.rss - before.rss) / 2 ** 20, portkey: null, portkeyNote: NOT_MEASURED, steal },
  ];
  return { rows, details: value };
}

/** Warm-up, then two equal rounds of relays with the web's GC'd heap read before, between and after. */
async function relayRounds(ctx: ScenarioContext) {
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
  const incomplete = warmIncomplete + firstIncomplete + secondIncomplete;
  return { streamsPerRound: rounds, chunksPerStream: RELAY_CHUNKS, chunksRelayed: chunks, seconds, incomplete, memory: { before, middle, after }, perChunk };
}
