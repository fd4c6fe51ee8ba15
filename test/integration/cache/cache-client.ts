import { expect } from 'vitest';
import { call, type JsonResponse } from '../../helpers/admin-client.js';
import type { TestGateway } from '../../helpers/test-gateway.js';
import { waitFor } from '../../helpers/wait-for.js';

/** Opts a request in to the cache for ten minutes. */
export const OPT_IN = { 'x-farebox-cache': 'max-age=600' };

/** One server-sent event: its name (if any) and parsed data. */
export interface SseEvent {
  event: string | undefined;
  data: any;
}

/** What a streamed call delivered. */
export interface SseResult {
  status: number;
  headers: Headers;
  events: SseEvent[];
  /** Whether `data: [DONE]` arrived. */
  done: boolean;
}

/** A JSON call to a door. */
export function post(url: string, path: string, raw: string, body: unknown, headers: Record<string, string> = OPT_IN): Promise<JsonResponse> {
  return call(url, 'POST', path, { token: raw, body, headers });
}

/** A streamed call to a door, parsed into events; `abortAfter` leaves after that many events. */
export async function postStream(url: string, path: string, raw: string, body: Record<string, unknown>, headers: Record<string, string> = OPT_IN, abortAfter?: number): Promise<SseResult> {
  const controller = new AbortController();
  const res = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${raw}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ ...body, stream: true }),
    signal: controller.signal,
  });
  const events: SseEvent[] = [];
  let done = false;
  if (res.status !== 200 || res.body === null) return { status: res.status, headers: res.headers, events, done };
  let buffer = '';
  const decoder = new TextDecoder();
  try {
    for await (const piece of res.body) {
      buffer += decoder.decode(piece, { stream: true });
      let cut: number;
      while ((cut = buffer.indexOf('\n\n')) >= 0) {
        const frame = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        let event: string | undefined;
        let data: string | undefined;
        for (const line of frame.split('\n')) {
          if (line.startsWith('event: ')) event = line.slice(7);
          if (line.startsWith('data: ')) data = line.slice(6);
        }
        if (data === undefined) continue;
        if (data === '[DONE]') done = true;
        else events.push({ event, data: JSON.parse(data) });
        if (abortAfter !== undefined && events.length >= abortAfter) {
          controller.abort();
          return { status: res.status, headers: res.headers, events, done };
        }
      }
    }
  } catch (err) {
    if (!controller.signal.aborted) throw err;
  }
  return { status: res.status, headers: res.headers, events, done };
}

/** The request id an answer names. */
export function idOf(res: { headers: Headers }): string {
  return res.headers.get('x-service-request-id') ?? '';
}

/** Nano-USD of a JSON-number USD cost. */
export function nano(usd: number): bigint {
  return BigInt(Math.round(usd * 1e9));
}

/** How many entries the gateway's cache holds now. */
export async function entryCount(gw: TestGateway): Promise<number> {
  const keys = await gw.deps.redis.keys(`${gw.config.redisPrefix}:cache:*:e:*`);
  return keys.length;
}

/** Waits until the cache holds `count` entries (answers are stored just after they are sent). */
export async function untilEntries(gw: TestGateway, count: number): Promise<void> {
  await waitFor(`${count} cache entries`, async () => (await entryCount(gw)) >= count, { timeoutMs: 3_000, intervalMs: 10 });
}

/** Lookups that found a stored answer, as the gateway's metrics count them. */
export async function hitsCounted(gw: TestGateway): Promise<number> {
  const metric = await gw.deps.metrics.registry.getSingleMetric('farebox_cache_hits_total')?.get();
  return (metric?.values ?? []).reduce((t, v) => t + v.value, 0);
}

/** The ledger entry of a request (waits for the group commit). */
export async function ledgerOf(gw: TestGateway, requestId: string): Promise<{ cost: bigint; charged: bigint; cost_details?: Array<{ component: string; amount_usd: string }> }> {
  await gw.deps.ledger.settled();
  const entry = await gw.deps.c.ledger.findOne({ _id: requestId });
  if (entry === null) throw new Error(`no ledger entry for ${requestId}`);
  return entry;
}

/** Checks a hit's charge: its usage shows `expected` with one `cache_hit` line, and the ledger charged the same. */
export async function expectHitCharged(gw: TestGateway, requestId: string, usage: { cost: number; cost_details: Array<{ component: string; amount_usd: string }> }, expected: bigint): Promise<void> {
  expect(nano(usage.cost)).toBe(expected);
  expect(usage.cost_details).toEqual([{ component: 'cache_hit', units: 1, unit_price_usd: usage.cost_details[0]?.amount_usd, amount_usd: usage.cost_details[0]?.amount_usd }]);
  const entry = await ledgerOf(gw, requestId);
  expect(entry.cost).toBe(expected);
  expect(entry.charged).toBe(expected);
  expect(entry.cost_details?.map((l) => l.component)).toEqual(['cache_hit']);
}
