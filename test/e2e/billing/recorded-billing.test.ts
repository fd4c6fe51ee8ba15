import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fundedKey } from '../../integration/chat/chat-client.js';
import { callDoor, type Door, type Observed, type WireLine } from './recorded-doors.js';
import { expectedBill, nanoOfText, type Expected } from './recorded-expectations.js';
import { billedRecordings, startRecordedGateway, type RecordedCase, type RecordedGateway } from '../../fixtures/recorded/recorded-gateway.js';

/**
 * Real recorded vendor answers, replayed byte for byte behind the gateway and sent through
 * every front door with the official clients: the cost a client sees must be the component
 * sum worked out by hand from the recording's own usage, to the nano-dollar, and so must the
 * ledger charge.
 */

const NO_BLANK_LINE = 'openai-compatible/anthropic-compat-tool-call-done-no-blank-line.sse';
const QUOTA = 'openai/error-429-insufficient-quota.json';

let rg: RecordedGateway;
let clients: { openai: OpenAI; anthropic: Anthropic };
let accountId: string;
const table: string[] = [];

beforeAll(async () => {
  rg = await startRecordedGateway([...billedRecordings(), NO_BLANK_LINE, QUOTA]);
  const key = await fundedKey(rg.gw.url, 100);
  accountId = key.accountId;
  clients = {
    openai: new OpenAI({ apiKey: key.raw, baseURL: `${rg.gw.url}/v1`, maxRetries: 0 }),
    anthropic: new Anthropic({ apiKey: key.raw, baseURL: rg.gw.url, maxRetries: 0 }),
  };
}, 120_000);

afterAll(async () => {
  if (table.length > 0) console.log(['recording | upstream usage | cost_details (component units × unit price = amount) | usage.cost = ledger cost', ...table].join('\n'));
  await rg?.close();
});

/** Anthropic bills thinking as output: its reasoning line (a local count) folds back into completion. */
function byComponent(lines: readonly WireLine[], anthropic: boolean): Record<string, { units: number; nano: bigint }> {
  const out: Record<string, { units: number; nano: bigint }> = {};
  for (const line of lines) {
    const key = anthropic && line.component === 'internal_reasoning' ? 'completion' : line.component;
    const prior = out[key] ?? { units: 0, nano: 0n };
    out[key] = { units: prior.units + line.units, nano: prior.nano + nanoOfText(line.amount_usd) };
  }
  return out;
}

async function ledgerCost(requestId: string): Promise<{ cost: bigint; units: Record<string, number> | null; overLimit?: bigint }> {
  for (let i = 0; i < 100; i++) {
    const entry = await rg.gw.deps.c.ledger.findOne({ _id: requestId });
    if (entry !== null) return { cost: entry.cost, units: entry.units, overLimit: entry.over_limit };
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`no ledger entry for ${requestId}`);
}

function compactUsage(usage: unknown): string {
  const flat: string[] = [];
  const walk = (value: unknown, path: string): void => {
    if (typeof value === 'number' && value !== 0 && !/time|ticks/.test(path)) flat.push(`${path}=${value}`);
    else if (typeof value === 'object' && value !== null) for (const [k, v] of Object.entries(value)) walk(v, path === '' ? k : `${path}.${k}`);
  };
  walk(usage, '');
  return flat.join(' ');
}

function row(c: RecordedCase, expected: Expected, seen: Observed, ledger: bigint, doors: readonly Door[]): string {
  const lines = seen.lines.map((l) => `${l.component} ${l.units}×${l.unit_price_usd}=${l.amount_usd}`).join(', ');
  return `${c.name} [${doors.join(',')}] | ${compactUsage(expected.upstream)} | ${lines} | $${seen.cost} = ledger ${ledger} nano`;
}

async function checkDoor(c: RecordedCase, door: Door, expected: Expected): Promise<{ seen: Observed; ledger: bigint }> {
  const seen = await callDoor(door, clients, c.model, c.stream);
  // usage.cost == the hand-computed sum, to the nano-dollar.
  expect(BigInt(Math.round(seen.cost * 1e9)), `${door} usage.cost`).toBe(expected.cost);
  expect(seen.lines.reduce((sum, l) => sum + nanoOfText(l.amount_usd), 0n), `${door} cost_details sum`).toBe(expected.cost);
  const shown = byComponent(seen.lines, c.anthropic);
  const want = Object.fromEntries(expected.lines.map((l) => [l.component, { units: l.units, nano: l.nano }]));
  expect(shown, `${door} cost_details lines`).toEqual(want);
  for (const line of seen.lines) expect(line.unit_price_usd).toBe(c.prices[line.component] ?? c.prices.completion);
  expect(seen.cached, `${door} cached tokens`).toBe(expected.cached);
  expect(seen.cacheWrites, `${door} cache writes`).toBe(expected.cacheWrites);
  expect(seen.webSearches, `${door} web searches`).toBe(expected.webSearches);
  if (expected.reasoning !== undefined && seen.reasoning !== undefined) expect(seen.reasoning, `${door} reasoning`).toBe(expected.reasoning);
  const ledger = await ledgerCost(seen.requestId);
  expect(ledger.cost, `${door} ledger cost`).toBe(expected.cost);
  expect(ledger.overLimit ?? 0n).toBe(0n);
  // The ledger keeps the billed units: the same components, the same counts.
  const fold = (k: string): string => (c.anthropic && k === 'internal_reasoning' ? 'completion' : k);
  const ledgerUnits: Record<string, number> = {};
  for (const [k, n] of Object.entries(ledger.units ?? {})) if (n > 0) ledgerUnits[fold(k)] = (ledgerUnits[fold(k)] ?? 0) + n;
  const { request: _fee, ...billedUnits } = Object.fromEntries(Object.entries(shown).map(([k, v]) => [k, v.units]));
  expect(ledgerUnits, `${door} ledger units`).toEqual(billedUnits);
  return { seen, ledger: ledger.cost };
}

describe('recorded vendor answers are billed per component, through every front door', () => {
  it.each(billedRecordings())('%s', async (name) => {
    const c = rg.cases.find((x) => x.name === name);
    if (c === undefined) throw new Error(`not served: ${name}`);
    const expected = expectedBill(c.fixture, c.prices);
    expect(expected.cost).toBeGreaterThan(0n);
    const doors: Door[] = c.anthropic ? ['chat', 'responses', 'messages'] : ['chat', 'responses'];
    let first: { seen: Observed; ledger: bigint } | undefined;
    for (const door of doors) {
      const result = await checkDoor(c, door, expected);
      first ??= result;
    }
    if (first !== undefined) table.push(row(c, expected, first.seen, first.ledger, doors));
  });

  it('cost_details of a reasoning answer separate reasoning from visible output', () => {
    const xai = rg.cases.find((x) => x.name === 'xai/chat-reasoning-outside-completion.json');
    if (xai === undefined) throw new Error('xai recording missing');
    const expected = expectedBill(xai.fixture, xai.prices);
    // xAI leaves its 228 reasoning tokens out of completion_tokens (1): they are billed on top.
    expect(expected.units).toMatchObject({ completion: 1, internal_reasoning: 228, prompt: 10, input_cache_read: 2 });
  });
});

describe('what real upstreams send besides usage', () => {
  it('a proxy stream whose [DONE] lacks its closing blank line is delivered and billed from a count', async () => {
    const { data, response } = await clients.openai.chat.completions
      .create({ model: rg.modelOf(NO_BLANK_LINE), messages: [{ role: 'user', content: 'Weather?' }], stream: true, stream_options: { include_usage: true } })
      .withResponse();
    let args = '';
    let usage: Record<string, any> | undefined;
    let finish: string | null | undefined;
    for await (const chunk of data) {
      for (const call of chunk.choices[0]?.delta.tool_calls ?? []) args += call.function?.arguments ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
      if (chunk.usage) usage = chunk.usage as Record<string, any>;
    }
    expect(finish).toBe('tool_calls');
    expect(() => JSON.parse(args) as unknown).not.toThrow();
    expect(usage?.cost).toBeGreaterThan(0);
    const ledger = await ledgerCost(response.headers.get('x-service-request-id') ?? '');
    expect(ledger.cost).toBe(BigInt(Math.round((usage?.cost as number) * 1e9)));
  });

  it.each(['chat', 'responses'] as const)("an upstream's 429 insufficient_quota reaches the %s client as 502 upstream_error", async (door) => {
    const model = rg.modelOf(QUOTA);
    const before = await rg.gw.deps.c.ledger.countDocuments({ account_id: accountId, kind: 'charge' });
    const call = door === 'chat'
      ? clients.openai.chat.completions.create({ model, messages: [{ role: 'user', content: 'hi' }] })
      : clients.openai.responses.create({ model, input: 'hi' });
    const err = await call.then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.APIError);
    const api = err as InstanceType<typeof OpenAI.APIError>;
    expect(api.status).toBe(502);
    expect(api.code).toBe('upstream_error');
    expect(api.headers?.get('retry-after') ?? null).toBeNull();
    expect(await rg.gw.deps.c.ledger.countDocuments({ account_id: accountId, kind: 'charge' })).toBe(before);
  });
});
