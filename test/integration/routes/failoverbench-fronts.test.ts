import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Door } from './failoverbench-calls.js';
import { expectMoney } from './failoverbench-money.js';
import { type Cell, runCells, scoreLine } from './failoverbench-runner.js';
import { SCENARIOS, type Verdict } from './failoverbench-table.js';
import { type BenchWorld, startBenchWorld } from './failoverbench-world.js';

/**
 * failoverbench's scenarios (methodology v0.1) on the Responses and Messages doors, served
 * through translation over an OpenAI-compatible route, streamed and not: the fallback is the
 * model's second route (these doors take no `models` field). Same verdicts as Chat Completions.
 */

const STREAMED: Readonly<Record<string, Verdict>> = {
  S01: 'pass', S02: 'pass', S03: 'pass', S04: 'pass', S05: 'pass', S06: 'pass', S07: 'pass', S08: 'pass',
  S09: 'pass', S10: 'pass', S11: 'pass', S12: 'pass', S13: 'pass', S14: 'safe', S16: 'pass',
};
/** Not streamed: see failoverbench-chat.test.ts for why S06, S07, S10 and S14 differ. */
const WHOLE: Readonly<Record<string, Verdict>> = { ...STREAMED, S06: 'fail', S07: 'partial', S10: 'safe', S14: 'pass' };

const DOORS: readonly Door[] = ['responses', 'messages'];

let world: BenchWorld;
const cells = new Map<string, Cell>();
const cellOf = (door: Door, id: string, stream: boolean): Cell => cells.get(`${door}/${id}/${stream}`) as Cell;

beforeAll(async () => {
  world = await startBenchWorld();
  for (const cell of await runCells(world, DOORS)) cells.set(`${cell.door}/${cell.scenario.id}/${cell.stream}`, cell);
}, 90_000);

afterAll(async () => {
  if (cells.size > 0) console.log(`\nfailoverbench on Responses and Messages\n${[...cells.values()].map(scoreLine).join('\n')}`);
  await world?.close();
});

describe.each(DOORS.flatMap((door) => [true, false].map((stream) => [door, stream] as const)))('%s, streamed: %s', (door, stream) => {
  it.each(SCENARIOS.map((s) => [s.id, s.title] as const))('%s %s: the expected verdict, and money that adds up', async (id) => {
    const cell = cellOf(door, id, stream);
    expect(cell.scored.verdict, scoreLine(cell)).toBe((stream ? STREAMED : WHOLE)[id]);
    await expectMoney(world, cell);
  });
});

describe.each(DOORS)('%s: a silent or slow first route', (door) => {
  it('is left after the first-token limit, once, for the second route', () => {
    for (const id of ['S06', 'S07']) {
      const cell = cellOf(door, id, true);
      expect([cell.primary.length, cell.fallback.length], id).toEqual([1, 1]);
      expect((cell.record.attempts as Array<Record<string, any>>)[0], id).toMatchObject({ provider: 'wall', outcome: 'failed', cause: 'timeout' });
    }
  });
});

describe.each(DOORS)('%s: a cut answer', (door) => {
  it('is continued on the second route, streamed', () => {
    const cell = cellOf(door, 'S08', true);
    expect(cell.fallback.map((r) => r.prefill)).toEqual([true]);
    expect(cell.record.provider).toBe('wall');
  });

  it("ends with the door's error event naming the cut when the second route takes no prefill", () => {
    const cell = cellOf(door, 'S14', true);
    expect(cell.outcome.ended).toBe(true);
    expect(cell.outcome.error?.message).not.toMatch(/prefill|assistant/i);
    expect(cell.fallback).toEqual([]);
  });
});
