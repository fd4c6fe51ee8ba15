import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ledgerEntry } from '../chat/chat-client.js';
import { type CallOutcome, callDoor, type Door, requestBody } from './failoverbench-calls.js';
import { isComplete, recordOf } from './failoverbench-runner.js';
import { FLAP } from './failoverbench-table.js';
import { type BenchWorld, type Instance, SCALE, scaled, SLACK_MS, startBenchWorld, TIMINGS } from './failoverbench-world.js';

/**
 * failoverbench's S15 (methodology v0.1), the primary that flaps: twenty requests four seconds
 * apart (scaled) while the primary answers 503 for its first sixty seconds, then recovers.
 * Scored as the methodology scores a sequence: no request hangs, every request made while the
 * primary is down is answered (by the fallback), and the primary answers again within thirty
 * seconds of recovering; the primary attempts per request during the outage are reported.
 */

/** One request of the sequence: when it started on the provider's clock, and what it got. */
interface Sent {
  readonly startedAt: number;
  readonly outcome: CallOutcome;
}

/** What a sequence did, from both sides. */
interface Sequence {
  readonly door: Door;
  readonly stream: boolean;
  readonly instance: Instance;
  readonly sent: readonly Sent[];
  /** When the primary recovered, on the provider's clock. */
  readonly recoveredAt: number;
  /** The first primary attempt that answered after it recovered, on the provider's clock. */
  readonly backAt: number | undefined;
  /** Primary attempts made while it was down, and requests sent meanwhile. */
  readonly downAttempts: number;
  readonly downRequests: number;
}

const RUNS: ReadonlyArray<[Door, boolean]> = [['chat', true], ['chat', false], ['responses', true], ['messages', true]];

let world: BenchWorld;
const sequences: Sequence[] = [];

async function runSequence(door: Door, stream: boolean): Promise<Sequence> {
  const instance = await world.instance(`s15-${door}-${stream ? 'stream' : 'whole'}`, 'flap', 'ok', door === 'chat');
  const body = requestBody(door, instance.model, stream, instance.fallbackModel);
  const calls: Array<Promise<Sent>> = [];
  for (let i = 0; i < FLAP.count; i += 1) {
    const startedAt = world.wall.now();
    calls.push(callDoor(world.gw.url, world.key.raw, door, body).then((outcome) => ({ startedAt, outcome })));
    await new Promise((resolve) => setTimeout(resolve, scaled(FLAP.intervalMs)));
  }
  const sent = await Promise.all(calls);
  const primary = world.wall.requestsOf(instance.primaryUpstream);
  const recoveredAt = (primary[0]?.at ?? 0) + TIMINGS.flapDownMs;
  const backAt = primary.find((r) => r.at >= recoveredAt && r.action === 'answered')?.at;
  return {
    door, stream, instance, sent, recoveredAt, backAt,
    downAttempts: primary.filter((r) => r.at < recoveredAt).length,
    downRequests: sent.filter((s) => s.startedAt < recoveredAt).length,
  };
}

function summary(s: Sequence): string {
  const during = s.sent.filter((r) => r.startedAt < s.recoveredAt);
  const served = during.filter((r) => isComplete(r.outcome.text)).length;
  const back = s.backAt === undefined ? 'never' : `+${((s.backAt - s.recoveredAt) * SCALE / 1000).toFixed(1)} s (full)`;
  return `S15 ${s.door} ${s.stream ? 'streamed' : 'whole'} | ${served}/${during.length} served in outage | back on primary ${back} | ${s.downAttempts} primary attempts for ${s.downRequests} requests during the outage`;
}

beforeAll(async () => {
  world = await startBenchWorld();
  // A cold gateway's first answers take seconds (code loaded, caches filled): warmed first, so
  // the sequence keeps its pace and the outage, timed from the primary's first request, is the scenario's.
  const warm = await world.instance('s15-warm-up', 'ok', 'ok', false);
  for (const [door, stream] of RUNS) await callDoor(world.gw.url, world.key.raw, door, requestBody(door, warm.model, stream));
  sequences.push(...(await Promise.all(RUNS.map(([door, stream]) => runSequence(door, stream)))));
}, 90_000);

afterAll(async () => {
  if (sequences.length > 0) console.log(`\n${sequences.map(summary).join('\n')}`);
  await world?.close();
});

describe.each(RUNS)('S15 %s, streamed: %s', (door, stream) => {
  const sequence = (): Sequence => sequences.find((s) => s.door === door && s.stream === stream) as Sequence;

  it('no request hangs, and every one made during the outage is answered in full by the fallback', () => {
    const s = sequence();
    for (const { outcome } of s.sent) {
      expect(outcome.ended).toBe(true);
      expect(outcome.wallMs).toBeLessThanOrEqual(scaled(FLAP.perRequestMaxWallMs) + SLACK_MS);
    }
    const during = s.sent.filter((r) => r.startedAt < s.recoveredAt);
    expect(during.length).toBeGreaterThan(FLAP.count / 2);
    for (const { outcome } of during) expect(isComplete(outcome.text), JSON.stringify(outcome.error)).toBe(true);
  });

  it('the breaker keeps the primary out during the outage, and takes it back once it recovers', () => {
    const s = sequence();
    expect(s.backAt, summary(s)).toBeDefined();
    expect((s.backAt as number) - s.recoveredAt).toBeLessThanOrEqual(scaled(FLAP.recoveredWithinMs));
    // A breaker makes the outage cost a few attempts, not two or more per request.
    expect(s.downAttempts).toBeLessThan(s.downRequests);
    // Requests after the recovery are answered by the primary again.
    const last = s.sent.at(-1) as Sent;
    expect(isComplete(last.outcome.text)).toBe(true);
  });

  it('each request is charged once, what its usage reported, at the prices of the route that answered', async () => {
    const s = sequence();
    for (const { outcome } of s.sent) {
      const entry = await ledgerEntry(world.gw.url, world.key.accountId, outcome.requestId);
      expect(entry?.cost_usd).toBe(outcome.usage?.cost);
      expect(entry?.over_limit_usd).toBeUndefined();
      const record = await recordOf(world, outcome.requestId);
      const answered = (record.attempts as Array<Record<string, any>>).filter((a) => a.outcome === 'answered');
      expect(answered).toHaveLength(1);
      expect(record.provider).toBe(answered[0]?.provider);
    }
  });
});
