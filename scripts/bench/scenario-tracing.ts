import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { findFreePort } from '../services/free-port.js';
import { repoRoot } from '../services/farebox-paths.js';
import { dropBenchData } from './bench-cleanup.js';
import { waitHttpReady } from './bench-processes.js';
import { seedBench } from './bench-seed.js';
import { GATEWAY_CORE, runRelease } from './bench-stack.js';
import { NOT_MEASURED } from './bench-targets.js';
import { chatBody, chatHeaders } from './chat-requests.js';
import { cpuSeconds } from './proc-stats.js';
import type { Measurement } from './report-rows.js';
import type { ScenarioContext, ScenarioOutput } from './scenario-context.js';

const WARM_UP = 500;
const COUNTED = 2_000;
const CONCURRENCY = 8;

/** An OTLP/HTTP sink that accepts every export and counts the bytes (what a collector costs is not ours). */
async function startSink(): Promise<{ url: string; bytes: () => number; close: () => Promise<void> }> {
  let bytes = 0;
  const server: Server = createServer((req, res) => {
    req.on('data', (c: Buffer) => (bytes += c.length));
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, bytes: () => bytes, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** Sends `n` non-streamed chat calls, `CONCURRENCY` at a time; returns how many were not 200. */
async function load(url: string, key: string, n: number): Promise<number> {
  let next = 0;
  let failed = 0;
  const body = chatBody({ stream: false });
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (next < n) {
      next += 1;
      const res = await fetch(`${url}/v1/chat/completions`, { method: 'POST', headers: chatHeaders(key), body });
      await res.arrayBuffer();
      if (res.status !== 200) failed += 1;
    }
  }));
  return failed;
}

/** CPU of the web process per counted request, µs, for one web with or without tracing. */
async function measureWeb(ctx: ScenarioContext, mode: 'off' | 'on', sinkUrl: string): Promise<{ usPerRequest: number; failed: number }> {
  const { stack } = ctx;
  const port = await findFreePort();
  const env: NodeJS.ProcessEnv = {
    ...stack.relays.web.env,
    PORT: String(port),
    MONGODB_DB: `${stack.dbName}_tracing_${mode}`,
    REDIS_PREFIX: `${stack.redisPrefix}_tracing_${mode}`,
    ...(mode === 'on' ? { OTEL_EXPORTER_OTLP_ENDPOINT: sinkUrl, OTEL_BSP_SCHEDULE_DELAY: '1000' } : {}),
  };
  runRelease(repoRoot(), stack.runtime, env);
  const proc = stack.group.spawn({ name: `web-tracing-${mode}`, core: GATEWAY_CORE, args: stack.relays.web.args, env, cwd: process.cwd() });
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitHttpReady(`${url}/readyz`, proc, 90_000);
    const account = await seedBench(url, stack.adminToken, `${stack.runId}-tracing-${mode}`);
    await load(url, account.key, WARM_UP);
    const before = cpuSeconds(proc.pid) ?? 0;
    const failed = await load(url, account.key, COUNTED);
    const after = cpuSeconds(proc.pid) ?? 0;
    return { usPerRequest: Math.round(((after - before) * 1e6) / COUNTED), failed };
  } finally {
    await stack.group.stop(proc.name);
    await dropBenchData(stack.services, env.MONGODB_DB ?? '', env.REDIS_PREFIX ?? '').catch((err: unknown) => ctx.log(`cleanup of tracing data failed: ${String(err)}`));
  }
}

/**
 * What exporting traces costs (DESIGN §9 "tracing on against off"): two webs of their own, one
 * exporting every request's trace over OTLP/HTTP to a local sink, the same non-streamed chat
 * load on each; the figure is the web process's CPU time per request (user + system, /proc).
 */
export async function tracingScenario(ctx: ScenarioContext): Promise<ScenarioOutput> {
  const sink = await startSink();
  try {
    const off = await measureWeb(ctx, 'off', sink.url);
    const on = await measureWeb(ctx, 'on', sink.url);
    ctx.log(`web CPU per chat request: ${off.usPerRequest} µs tracing off, ${on.usPerRequest} µs tracing on (${sink.bytes()} bytes exported)`);
    const failed = off.failed + on.failed;
    const row: Measurement = {
      id: 'tracing-cpu',
      scenario: 'web CPU per chat request, tracing on (floor column: tracing off)',
      unit: 'µs',
      floor: off.usPerRequest,
      farebox: on.usPerRequest,
      portkey: null,
      portkeyNote: NOT_MEASURED,
      ...(failed > 0 || sink.bytes() === 0 ? { valid: false, note: `${failed} calls not answered 200; ${sink.bytes()} bytes exported` } : {}),
      steal: null,
    };
    return { rows: [row], details: { off, on, exportedBytes: sink.bytes(), counted: COUNTED, concurrency: CONCURRENCY } };
  } finally {
    await sink.close();
  }
}
