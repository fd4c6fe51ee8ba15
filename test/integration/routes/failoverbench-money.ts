import { expect } from 'vitest';
import type { SeenRequest } from '../../fixtures/upstreams/faulty-openai.js';
import { ledgerEntry } from '../chat/chat-client.js';
import type { CostLine } from './failoverbench-calls.js';
import type { Cell } from './failoverbench-runner.js';
import { type BenchWorld, FALLBACK_PRICE, PRIMARY_PRICE } from './failoverbench-world.js';

const nano = (usd: string | number): bigint => BigInt(Math.round(Number(usd) * 1e9));

/** Calls the provider made on a route, as the record lists them: tried, not skipped, and not the line that closes a cut leg. */
function callsOn(record: Record<string, any>, provider: string): number {
  const attempts = (record.attempts ?? []) as Array<Record<string, any>>;
  return attempts.filter((a) => a.provider === provider && a.outcome !== 'skipped' && !(a.outcome === 'failed' && a.leg !== undefined)).length;
}

/** The lines billed at one route's prices. */
function linesAt(lines: readonly CostLine[], price: { prompt: string; completion: string }): CostLine[] {
  return lines.filter((l) => (l.component === 'prompt' && Number(l.unit_price_usd) === Number(price.prompt)) || (l.component === 'completion' && Number(l.unit_price_usd) === Number(price.completion)));
}

/** One leg's lines: exactly one prompt and one completion line, the prompt as the provider counted the last request it got on that route. */
function expectLeg(lines: readonly CostLine[], requests: readonly SeenRequest[]): void {
  expect(lines.map((l) => l.component).sort()).toEqual(['completion', 'prompt']);
  expect(lines.find((l) => l.component === 'prompt')?.units).toBe(requests.at(-1)?.promptTokens);
}

/**
 * The money of a cell: the attempts the record lists on each route are the calls the provider
 * saw; a call that answered nothing is not charged; otherwise one charge equal to `usage.cost`
 * and to the sum of its lines, within the hold (nothing absorbed over it), with each leg billed
 * once at its own route's prices, its input as the provider counted it (a cut leg included).
 */
export async function expectMoney(world: BenchWorld, cell: Cell): Promise<void> {
  const { outcome, record } = cell;
  const fallbackProvider = cell.scenario.fallback === 'ok' ? 'wall-fallback' : 'wall-noprefill';
  expect(callsOn(record, 'wall'), 'primary calls in the record').toBe(cell.primary.length);
  expect(callsOn(record, fallbackProvider), 'fallback calls in the record').toBe(cell.fallback.length);
  const entry = await ledgerEntry(world.gw.url, world.key.accountId, outcome.requestId);
  if (outcome.usage === undefined) {
    expect(entry, 'an answer that never started is not charged').toBeUndefined();
    return;
  }
  const { cost, cost_details: lines } = outcome.usage;
  expect(lines.reduce((sum, l) => sum + nano(l.amount_usd), 0n)).toBe(nano(cost));
  expect(entry?.cost_usd).toBe(cost);
  expect(entry?.over_limit_usd, 'nothing metered beyond the hold').toBeUndefined();
  expect(cost).toBeLessThanOrEqual(cell.holdUsd);
  const answered = (provider: string) => ((record.attempts ?? []) as Array<Record<string, any>>).some((a) => a.provider === provider && a.outcome === 'answered');
  const primaryLines = linesAt(lines, PRIMARY_PRICE);
  const fallbackLines = linesAt(lines, FALLBACK_PRICE);
  expect(primaryLines.length + fallbackLines.length, 'every line belongs to a leg').toBe(lines.length);
  if (answered('wall')) expectLeg(primaryLines, cell.primary);
  else expect(primaryLines).toEqual([]);
  if (answered(fallbackProvider)) expectLeg(fallbackLines, cell.fallback);
  else expect(fallbackLines).toEqual([]);
}
