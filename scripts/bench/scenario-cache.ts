import { dropBenchData } from './bench-cleanup.js';
import { waitHttpReady } from './bench-processes.js';
import { seedBench } from './bench-seed.js';
import { NO_EQUIVALENT } from './bench-targets.js';
import { chatBody, chatHeaders } from './chat-requests.js';
import { round3 } from './latency-stats.js';
import type { Measurement } from './report-rows.js';
import type { ScenarioContext, ScenarioOutput } from './scenario-context.js';
import { brief, runAutocannon } from './scenario-throughput.js';
import { startSideWeb } from './side-web.js';

/** Seconds of closed-loop load per path, after a warm-up of a third of it. */
const SECONDS = 6;
const CONNECTIONS = 64;

/**
 * The exact response cache (DESIGN §9): a web of its own (one core, 1 ms upstream) answers the
 * same non-streamed chat closed-loop, once opted in to the cache (every answer after the first
 * is a hit: admitted and charged at the hit price, replayed from Redis) and once without (every
 * answer goes upstream). Reported: hits per second against misses per second.
 */
export async function cacheScenario(ctx: ScenarioContext): Promise<ScenarioOutput> {
  const { stack } = ctx;
  const side = await startSideWeb(ctx, 'cache', {});
  try {
    await waitHttpReady(`${side.url}/readyz`, side.proc, 90_000);
    const account = await seedBench(side.url, stack.adminToken, `${stack.runId}-cache`);
    const url = `${side.url}/v1/chat/completions`;
    const body = chatBody({ stream: false });
    const cached = { ...chatHeaders(account.key), 'x-farebox-cache': 'max-age=600' };
    const first = await fetch(url, { method: 'POST', headers: cached, body });
    await first.arrayBuffer();
    const second = await fetch(url, { method: 'POST', headers: cached, body });
    await second.arrayBuffer();
    const served = second.headers.get('x-farebox-cache');
    const run = async (headers: Record<string, string>) => {
      const options = { url, method: 'POST' as const, headers, body, connections: CONNECTIONS };
      await runAutocannon({ ...options, duration: Math.ceil(SECONDS / 3) });
      return brief(await runAutocannon({ ...options, duration: SECONDS }));
    };
    const hits = await run(cached);
    const misses = await run(chatHeaders(account.key));
    ctx.log(`cache: hits ${JSON.stringify(hits)}; misses ${JSON.stringify(misses)}; second request ${served}`);
    const failed = (hits.non2xx ?? 0) + (hits.errors ?? 0) + (misses.non2xx ?? 0) + (misses.errors ?? 0);
    const row: Measurement = {
      id: 'cache-hits',
      scenario: `cached chat hits per second (closed loop, ${CONNECTIONS} connections, one core)`,
      unit: 'req/s',
      floor: null,
      farebox: hits.requestsPerSecond ?? null,
      portkey: null,
      portkeyNote: NO_EQUIVALENT,
      note: `misses (every answer upstream, 1 ms mock): ${misses.requestsPerSecond} req/s, so a hit runs at ${round3((hits.requestsPerSecond ?? 0) / (misses.requestsPerSecond || 1))}× a miss; p99 hit ${hits.latencyP99Ms} ms, miss ${misses.latencyP99Ms} ms; the second identical request was served X-Farebox-Cache: ${served}`,
      ...(failed > 0 || served !== 'hit' ? { valid: false } : {}),
      steal: null,
    };
    return { rows: [row], details: { hits, misses, served } };
  } finally {
    await stack.group.stop(side.proc.name);
    await dropBenchData(stack.services, side.env.MONGODB_DB ?? '', side.env.REDIS_PREFIX ?? '').catch(() => undefined);
  }
}
