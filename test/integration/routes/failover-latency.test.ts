import { afterAll, beforeAll, describe, it } from 'vitest';
import type { FakeScenario } from '../../fixtures/upstreams/fake-openai.js';
import { startRoutesWorld, type RoutesWorld } from './routes-gateway.js';

/**
 * Measures what a failover adds per failure kind: the median time of a request whose first
 * route fails that way and whose second answers, minus the median of the second route alone.
 * A measurement, not a test (no timing assertion): run with FAILOVER_LATENCY=1.
 */
const RUNS = 40;
const messages = [{ role: 'user' as const, content: 'Say hello' }];
let w: RoutesWorld;
let n = 0;

const KINDS: Array<[string, string, FakeScenario | undefined]> = [
  ['429 + Retry-After', 'prov-a', { type: 'error', status: 429, body: '{"error":{"message":"slow down"}}', headers: { 'retry-after': '1' } }],
  ['500', 'prov-a', { type: 'error', status: 500, body: '{}' }],
  ['503', 'prov-a', { type: 'error', status: 503, body: '{}' }],
  ['529', 'prov-a', { type: 'error', status: 529, body: '{}' }],
  ['reset before headers', 'prov-a', { type: 'reset' }],
  ['connect refused', 'prov-dead', undefined],
  ['stall before first byte (400 ms timeout)', 'prov-a', { type: 'hang' }],
  ['keys refused (401), then set aside', 'prov-keyed', undefined],
];

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

async function timed(firstProvider: string | undefined, stream: boolean): Promise<number> {
  n += 1;
  const model = `lat/m${n}`;
  await w.model(model, firstProvider === undefined ? ['prov-b'] : [firstProvider, 'prov-b']);
  const started = performance.now();
  if (stream) {
    for await (const _chunk of await w.client.chat.completions.create({ model, messages, stream: true })) void _chunk;
  } else {
    await w.client.chat.completions.create({ model, messages });
  }
  return performance.now() - started;
}

describe.skipIf(process.env.FAILOVER_LATENCY !== '1')('failover latency', () => {
  beforeAll(async () => {
    w = await startRoutesWorld({ ROUTE_BREAKER_FAILURES: '100000', LOG_LEVEL: 'warn' });
  }, 60_000);
  afterAll(async () => {
    await w?.close();
  });

  it('prints the added latency per failure kind', async () => {
    const rows: string[] = [];
    for (let i = 0; i < 10; i += 1) await timed(undefined, i % 2 === 0);
    for (const stream of [false, true]) {
      for (const [kind, provider, scenario] of KINDS) {
        w.a.setScenario(scenario ?? { type: 'normal' });
        // Interleaved with the second route alone, so machine noise hits both alike.
        const base: number[] = [];
        const times: number[] = [];
        for (let i = 0; i < RUNS; i += 1) {
          base.push(await timed(undefined, stream));
          times.push(await timed(provider, stream));
        }
        const added = `median +${(median(times) - median(base)).toFixed(1)} ms, min +${(Math.min(...times) - Math.min(...base)).toFixed(1)} ms`;
        rows.push(`${stream ? 'stream' : 'complete'} | ${kind} | alone median ${median(base).toFixed(1)} ms | with failover median ${median(times).toFixed(1)} ms | ${added}`);
      }
      w.a.setScenario({ type: 'normal' });
    }
    console.log(`\nfailover latency (${RUNS} runs each, loopback)\n${rows.join('\n')}`);
  }, 300_000);
});
