import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadRecorded, type RecordedFixture } from '../../fixtures/recorded/recorded-fixtures.js';
import { startRecordedGateway, type RecordedGateway } from '../../fixtures/recorded/recorded-gateway.js';
import { fundedKey } from './chat-client.js';
import { chargeOf, heldTotal, holdOf, openStream, type OpenStream } from './settlement-stream.js';

/**
 * One test per row of the settlement policy (docs/money-and-holds.md, "Settlement policy"): where the billed
 * counts come from for each way a request can end. Upstreams replay recorded vendor streams,
 * or streams written in OpenAI's wire format, held where the row needs the gateway to wait.
 * Every row checks the charge against the request's hold, read from Redis while it is open.
 */

const TEXT = loadRecorded('openai', 'chat-stream-text');
/** The recorded stream's own usage: prompt 16, completion 300. */
const TEXT_USAGE = { prompt: 16, completion: 300 };

/** A stream written in OpenAI's chunk format (for outcomes no recording shows). */
function written(name: string, chunks: Array<{ content?: string; finish?: string }>, usage?: Record<string, number>): RecordedFixture {
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) => ({ id: 'chatcmpl-written', object: 'chat.completion.chunk', created: 1_700_000_000, model: 'gpt-4o-mini', choices, ...extra });
  const frames = chunks.map((c, i) => chunk([{ index: 0, delta: i === 0 ? { role: 'assistant', content: c.content ?? '' } : { content: c.content ?? '' }, finish_reason: c.finish ?? null }]));
  if (usage !== undefined) frames.push(chunk([], { usage }));
  const text = [...frames.map((f) => `data: ${JSON.stringify(f)}\n\n`), 'data: [DONE]\n\n'].join('');
  return { meta: { ...TEXT.meta, file: `${name}.sse`, recorded: false, shows: name }, text };
}

const SPECS = {
  completed: { fixture: TEXT, options: { holdLastEvent: true } },
  leftMidStream: { fixture: TEXT, options: { holdLastEvent: true, holdEventsFromEnd: 10, pauseBeforeLastEventMs: 1000 } },
  leftAfterFinish: { fixture: TEXT, options: { holdLastEvent: true, holdEventsFromEnd: 2, pauseBeforeLastEventMs: 1500 } },
  upstreamCut: { fixture: loadRecorded('anthropic', 'messages-stream-error-mid-answer'), options: { holdLastEvent: true } },
  errorFirst: { fixture: loadRecorded('anthropic', 'error-529-overloaded'), options: {} },
  noUsageTools: { fixture: loadRecorded('openai-compatible', 'anthropic-compat-tool-call-done-no-blank-line'), options: { holdLastEvent: true } },
  noUsagePlain: { fixture: loadRecorded('openai-compatible', 'anthropic-compat-tool-call-done-no-blank-line'), options: { holdLastEvent: true } },
  emptyCounted: { fixture: written('empty', [{ content: '' }, { finish: 'stop' }]), options: { holdLastEvent: true } },
  emptyReported: { fixture: written('empty-usage', [{ content: '' }, { finish: 'stop' }], { prompt_tokens: 9, completion_tokens: 0, total_tokens: 9 }), options: { holdLastEvent: true } },
  contentFilter: { fixture: written('filtered', [{ content: 'I can' }, { finish: 'content_filter' }], { prompt_tokens: 25, completion_tokens: 2, total_tokens: 27 }), options: { holdLastEvent: true } },
} as const;
type Row = keyof typeof SPECS;

let rg: RecordedGateway;
const specList = Object.entries(SPECS).map(([name, spec]) => ({ name: `policy/${name}`, ...spec }));

beforeAll(async () => {
  // The client-left rows rely on the upstream being read well past the 1.5 s the usage takes.
  rg = await startRecordedGateway(specList, { USAGE_GRACE_MS: '5000' });
}, 60_000);
afterAll(async () => rg?.close());

const nano = (usd: number): bigint => BigInt(Math.round(usd * 1e9));
const caseOf = (row: Row) => rg.cases.find((c) => c.name === `policy/${row}`)!;

interface Begun {
  accountId: string;
  s: OpenStream;
  /** The hold, read while the upstream is held. */
  hold: bigint;
}

/** Opens a stream on a row's upstream and reads its hold while the upstream is held. */
async function begin(gw: RecordedGateway, row: string, extra: Record<string, unknown> = {}): Promise<Begun> {
  const c = gw.cases.find((x) => x.name === `policy/${row}`)!;
  const { accountId, raw } = await fundedKey(gw.gw.url, 10);
  const s = await openStream(gw.gw.url, raw, { model: c.model, messages: [{ role: 'user', content: 'Tell me a story about a lighthouse.' }], ...extra });
  expect(s.status).toBe(200);
  await c.replay.held();
  const hold = await holdOf(gw.gw, accountId, s.requestId);
  if (hold === undefined) throw new Error('no hold while the upstream is held');
  return { accountId, s, hold };
}

/** The settled charge: durable, > 0, within the hold, and the hold freed. */
async function settledWithin(gw: RecordedGateway, b: Begun) {
  const charge = await chargeOf(gw.gw, b.s.requestId);
  if (charge === undefined) throw new Error('no charge');
  expect(charge.cost).toBeGreaterThan(0n);
  expect(charge.cost).toBeLessThanOrEqual(b.hold);
  expect(charge.overLimit).toBe(0n);
  // The ledger is written first; the hold is freed right after.
  for (let i = 0; i < 100 && (await heldTotal(gw.gw, b.accountId)) !== 0n; i++) await new Promise((resolve) => setTimeout(resolve, 20));
  expect(await heldTotal(gw.gw, b.accountId)).toBe(0n);
  return { ...charge, units: Object.fromEntries(Object.entries(charge.units).filter(([, n]) => n > 0)) };
}

/** Reads until an event matches (the client stays until then). */
async function readUntil(s: OpenStream, match: (event: Record<string, any>) => boolean): Promise<void> {
  for (let event = await s.next(); event !== undefined && event !== '[DONE]'; event = await s.next()) if (match(event)) return;
  throw new Error('stream ended before the expected event');
}

describe('settlement policy: where billed counts come from', () => {
  it('completed: the upstream usage, exactly, as the usage chunk says', async () => {
    const b = await begin(rg, 'completed');
    caseOf('completed').replay.release();
    const { events, done } = await b.s.rest();
    expect(done).toBe(true);
    const charge = await settledWithin(rg, b);
    expect(charge.units).toEqual(TEXT_USAGE);
    expect(charge.cost).toBe(nano(events.at(-1)?.usage.cost as number));
  });

  it('client left mid-stream: the upstream usage, read after the client left', async () => {
    const b = await begin(rg, 'leftMidStream');
    await readUntil(b.s, (e) => typeof e.choices?.[0]?.delta?.content === 'string' && e.choices[0].delta.content !== '');
    b.s.abort();
    caseOf('leftMidStream').replay.release();
    expect((await settledWithin(rg, b)).units).toEqual(TEXT_USAGE);
  });

  it('client left after the finish chunk: billed from the usage chunk that came 1.5 s later, not from a count', async () => {
    const b = await begin(rg, 'leftAfterFinish');
    await readUntil(b.s, (e) => e.choices?.[0]?.finish_reason === 'stop');
    b.s.abort();
    caseOf('leftAfterFinish').replay.release();
    expect((await settledWithin(rg, b)).units).toEqual(TEXT_USAGE);
  });

  it("upstream cut mid-stream: an error chunk; the upstream's partial input count plus the counted output", async () => {
    const b = await begin(rg, 'upstreamCut');
    caseOf('upstreamCut').replay.release();
    const { events, done } = await b.s.rest();
    expect(done).toBe(true);
    expect(events.find((e) => e.error !== undefined)?.error.code).toBe('upstream_error');
    const charge = await settledWithin(rg, b);
    // message_start said input_tokens 17: that, not a local count of the prompt.
    expect(charge.units.prompt).toBe(17);
    expect(charge.units.completion).toBeGreaterThanOrEqual(1);
    expect(charge.cost).toBe(nano(events.at(-1)?.usage.cost as number));
  });

  it('upstream error before the first byte: a JSON error, nothing charged, the hold released', async () => {
    const { accountId, raw } = await fundedKey(rg.gw.url, 10);
    const s = await openStream(rg.gw.url, raw, { model: caseOf('errorFirst').model, messages: [{ role: 'user', content: 'hi' }] });
    expect(s.status).toBe(502);
    expect(s.errorBody?.error.code).toBe('upstream_error');
    expect(await chargeOf(rg.gw, s.requestId, 300)).toBeUndefined();
    expect(await holdOf(rg.gw, accountId, s.requestId)).toBeUndefined();
    expect(await heldTotal(rg.gw, accountId)).toBe(0n);
  });

  it('no usage reported: a count of everything the hold bounded (tools and schema text included), never $0', async () => {
    const tools = [{ type: 'function', function: { name: 'get_weather', description: 'Current weather for a city, in detail, with a forecast for the days ahead.', parameters: { type: 'object', properties: { city: { type: 'string', description: 'The city name' }, days: { type: 'integer' } }, required: ['city'] } } }];
    const schema = { type: 'json_schema', json_schema: { name: 'weather', schema: { type: 'object', properties: { summary: { type: 'string' }, celsius: { type: 'number' } } } } };
    const plain = await begin(rg, 'noUsagePlain');
    caseOf('noUsagePlain').replay.release();
    expect((await plain.s.rest()).done).toBe(true);
    const withTools = await begin(rg, 'noUsageTools', { tools, response_format: schema });
    caseOf('noUsageTools').replay.release();
    expect((await withTools.s.rest()).done).toBe(true);
    const [a, b] = [await settledWithin(rg, plain), await settledWithin(rg, withTools)];
    expect(a.units.completion).toBeGreaterThan(0);
    expect(b.units.completion).toBe(a.units.completion);
    expect(b.units.prompt).toBeGreaterThan(a.units.prompt! + 40);
  });

  it('empty output: the prompt is billed (counted when unreported, reported when reported)', async () => {
    const counted = await begin(rg, 'emptyCounted');
    caseOf('emptyCounted').replay.release();
    expect((await counted.s.rest()).done).toBe(true);
    const c = await settledWithin(rg, counted);
    expect(c.units.prompt).toBeGreaterThan(0);
    expect(c.units.completion ?? 0).toBe(0);
    const reported = await begin(rg, 'emptyReported');
    caseOf('emptyReported').replay.release();
    expect((await reported.s.rest()).done).toBe(true);
    expect((await settledWithin(rg, reported)).units).toEqual({ prompt: 9 });
  });

  it('content filter: the upstream usage of a filtered answer', async () => {
    const b = await begin(rg, 'contentFilter');
    caseOf('contentFilter').replay.release();
    const { events } = await b.s.rest();
    expect(events.some((e) => e.choices?.[0]?.finish_reason === 'content_filter')).toBe(true);
    expect((await settledWithin(rg, b)).units).toEqual({ prompt: 25, completion: 2 });
  });
});

describe('settlement policy: a request that runs out of time', () => {
  let slow: RecordedGateway;
  beforeAll(async () => {
    slow = await startRecordedGateway([{ name: 'policy/timedOut', fixture: TEXT, options: { holdLastEvent: true, holdEventsFromEnd: 2 } }], { MAX_REQUEST_SECONDS: '1' });
  }, 60_000);
  afterAll(async () => slow?.close());

  it('request timed out: an upstream_timeout error chunk and the usage of what was produced', async () => {
    const b = await begin(slow, 'timedOut');
    const { events, done } = await b.s.rest();
    expect(done).toBe(true);
    expect(events.find((e) => e.error !== undefined)?.error.code).toBe('upstream_timeout');
    const usage = events.at(-1)?.usage;
    const charge = await settledWithin(slow, b);
    expect(charge.cost).toBe(nano(usage.cost as number));
    // Counted: the whole text was produced before the usage chunk that never came.
    expect(charge.units.completion).toBeGreaterThan(100);
    expect(charge.units.prompt).toBeGreaterThan(0);
  });
});
