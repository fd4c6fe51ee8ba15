import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectMoney } from './failoverbench-money.js';
import { type Cell, runCells, scoreLine } from './failoverbench-runner.js';
import { SCENARIOS, type Verdict } from './failoverbench-table.js';
import { type BenchWorld, startBenchWorld } from './failoverbench-world.js';

/**
 * failoverbench's scenarios (methodology v0.1) on Chat Completions, streamed and not, with the
 * gateway's shipped defaults scaled down (see failoverbench-world.ts); all cells run at once.
 * The fallback is a model of `models`, as the benchmark gives each system one fallback model.
 */

/** Streamed, every scenario passes but S14, whose fallback cannot continue the cut answer: a clean error naming the cut. */
const STREAMED: Readonly<Record<string, Verdict>> = {
  S01: 'pass', S02: 'pass', S03: 'pass', S04: 'pass', S05: 'pass', S06: 'pass', S07: 'pass', S08: 'pass',
  S09: 'pass', S10: 'pass', S11: 'pass', S12: 'pass', S13: 'pass', S14: 'safe', S16: 'pass',
};

/**
 * Not streamed, a broken answer is restarted on the next route (nothing reached the client),
 * so S08, S09 and S14 answer in full. The first token of a whole answer is its last byte:
 * a slow one is waited for (S07, partial), and a silent provider is left only after
 * UPSTREAM_FIRST_BYTE_TIMEOUT_MS (120 s, beyond S06's 100 s budget, so long answers are not
 * cut short). A body that is not JSON fails cleanly (S10, safe).
 */
const WHOLE: Readonly<Record<string, Verdict>> = { ...STREAMED, S06: 'fail', S07: 'partial', S10: 'safe', S14: 'pass' };

let world: BenchWorld;
const cells = new Map<string, Cell>();
const cellOf = (id: string, stream: boolean): Cell => cells.get(`${id}/${stream}`) as Cell;

beforeAll(async () => {
  world = await startBenchWorld();
  for (const cell of await runCells(world, ['chat'])) cells.set(`${cell.scenario.id}/${cell.stream}`, cell);
}, 90_000);

afterAll(async () => {
  if (cells.size > 0) console.log(`\nfailoverbench on Chat Completions\n${[...cells.values()].map(scoreLine).join('\n')}`);
  await world?.close();
});

describe.each([true, false])('Chat Completions, streamed: %s', (stream) => {
  it.each(SCENARIOS.map((s) => [s.id, s.title] as const))('%s %s: the expected verdict, and money that adds up', async (id) => {
    const cell = cellOf(id, stream);
    expect(cell.scored.verdict, scoreLine(cell)).toBe((stream ? STREAMED : WHOLE)[id]);
    await expectMoney(world, cell);
  });
});

describe('what each rescue looks like', () => {
  it('S08 streamed: the cut answer is continued on the fallback from where it broke, billed as two legs', () => {
    const cell = cellOf('S08', true);
    expect(cell.fallback.map((r) => r.prefill)).toEqual([true]);
    expect((cell.record.attempts as Array<Record<string, any>>).map((a) => [a.provider, a.outcome, a.cause, a.leg ?? null])).toEqual([
      ['wall', 'answered', null, null],
      ['wall', 'failed', 'reset', 1],
      ['wall-fallback', 'answered', 'continuation', 2],
    ]);
  });

  it('S09 streamed: the stall is detected by the stall limit (or the provider hanging up), then continued', () => {
    const cell = cellOf('S09', true);
    const cut = (cell.record.attempts as Array<Record<string, any>>).find((a) => a.leg === 1);
    expect(['timeout', 'reset']).toContain(cut?.cause);
    expect(cell.fallback.map((r) => r.prefill)).toEqual([true]);
  });

  it('S14 streamed: the fallback that takes no prefill is never asked, and the error names the cut', () => {
    const cell = cellOf('S14', true);
    expect(cell.fallback).toEqual([]);
    expect(cell.outcome.error?.message).toMatch(/connection|stream|upstream/i);
    expect(cell.outcome.error?.message).not.toMatch(/prefill|assistant/i);
    expect(cell.outcome.text.length).toBeGreaterThan(0);
  });

  it('S06 and S07 streamed: one attempt on the silent or slow route, then the fallback', () => {
    for (const id of ['S06', 'S07']) {
      const cell = cellOf(id, true);
      expect([cell.primary.length, cell.fallback.length], id).toEqual([1, 1]);
      expect((cell.record.attempts as Array<Record<string, any>>)[0]).toMatchObject({ provider: 'wall', outcome: 'failed', cause: 'timeout' });
    }
  });

  it('S01 and S03: retried once on the same route, which answers; S05: a reset moves on to the fallback', () => {
    for (const stream of [true, false]) {
      for (const id of ['S01', 'S03']) expect([cellOf(id, stream).primary.length, cellOf(id, stream).fallback.length], `${id} ${stream}`).toEqual([2, 0]);
      expect([cellOf('S05', stream).primary.length, cellOf('S05', stream).fallback.length], `S05 ${stream}`).toEqual([1, 1]);
    }
  });

  it('S02: a 429 that names no wait moves on at once; S04 and S16: a 503 is retried once, then the fallback answers', () => {
    expect([cellOf('S02', true).primary.length, cellOf('S02', true).fallback.length]).toEqual([1, 1]);
    for (const id of ['S04', 'S16']) expect([cellOf(id, true).primary.length, cellOf(id, true).fallback.length], id).toEqual([2, 1]);
  });

  it('S11: finalised as soon as the stream ends, with its usage', () => {
    const cell = cellOf('S11', true);
    expect(cell.outcome.usage?.cost).toBeGreaterThan(0);
    expect(cell.primary.map((r) => r.action)).toEqual(['stream complete without [DONE]']);
  });

  it('S13: the provider reason reaches the client, and the filtered model is not asked again', () => {
    const cell = cellOf('S13', true);
    expect(cell.outcome.status).toBe(400);
    expect(cell.outcome.error?.message).toMatch(/safety system/);
  });

  it("S16: the answer names the fallback model, which is what's billed", () => {
    const cell = cellOf('S16', true);
    expect(cell.outcome.model).toBe(cell.instance.fallbackModel);
    expect(cell.record.model).toBe(cell.instance.fallbackModel);
  });
});
