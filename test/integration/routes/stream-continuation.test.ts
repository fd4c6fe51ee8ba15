import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeOpenAi, type FakeScenario, type FakeUpstream } from '../../fixtures/upstreams/fake-openai.js';
import { prefillOf, startAnthropicContinuer, startOpenAiContinuer } from '../../fixtures/upstreams/fake-continuer.js';
import { adminClient, call } from '../../helpers/admin-client.js';
import { startTestGateway, testEnv, type TestGateway } from '../../helpers/test-gateway.js';
import { chat, fundedKey, ledgerEntry, type StreamResult, streamChat, streamedText, type FundedKey } from '../chat/chat-client.js';

/** The whole answer: the first route sends its beginning, the continuing route the rest. */
const ANSWER = 'Alpha bravo charlie delta echo foxtrot golf hotel india juliet.';
const KEY_CUT = 'sk-fake-cut-upstream-key-0001';
const KEY_CLAUDE = 'sk-ant-fake-continuer-key-0002';
const KEY_OAI = 'sk-fake-oai-continuer-key-0003';
/** Prices of the first route and of the continuing ones, USD per token. */
const PRICE_A = { prompt: '0.000001', completion: '0.000002' };
const PRICE_B = { prompt: '0.000003', completion: '0.000004' };
/** What the continuing fakes report for their leg. */
const CLAUDE_USAGE = { input: 30, output: 9 };
const OAI_USAGE = { input: 31, output: 8 };
/** Frames the first route sends before it breaks: the role chunk and three words. */
const CUT_AFTER = 4;
const FIRST_PART = 'Alpha bravo charlie ';

let gw: TestGateway;
let cut: FakeUpstream;
let claude: FakeUpstream;
let oai: FakeUpstream;
let whole: FakeUpstream;
let key: FundedKey;
let dir: string;
let n = 0;

/** A fresh model whose routes are `routes` in order (continuing routes at PRICE_B), so breakers never carry over. */
async function freshModel(routes: Array<{ provider: string; prefill?: boolean }>): Promise<string> {
  n += 1;
  const id = `cont/m${n}`;
  const body = {
    name: id,
    kind: 'chat',
    routes: routes.map((r) => ({ provider: r.provider, upstream_model: `${r.provider}-model`, ...(r.provider === 'prov-cut' ? {} : { pricing: PRICE_B }), ...(r.prefill === undefined ? {} : { prefill: r.prefill }) })),
    pricing: PRICE_A,
    context_length: 100_000,
    max_output_tokens: 100,
  };
  const res = await adminClient(gw.url).call('PUT', `/models/${id}`, body);
  if (res.status !== 200) throw new Error(`PUT model ${res.status} ${JSON.stringify(res.body)}`);
  return id;
}

const messages = [{ role: 'user', content: 'Spell the alphabet the radio way' }];

async function recordOf(requestId: string): Promise<Record<string, any>> {
  await gw.deps.requests.drain();
  const res = await adminClient(gw.url).call('GET', `/requests/${requestId}`);
  if (res.status !== 200) throw new Error(`record ${requestId}: ${res.status}`);
  return res.body.data as Record<string, any>;
}

const requestIdOf = (result: StreamResult) => result.headers.get('x-service-request-id') ?? '';
const nano = (usd: string | number) => BigInt(Math.round(Number(usd) * 1e9));
const roleChunks = (result: StreamResult) => result.events.filter((e) => e.choices?.[0]?.delta?.role !== undefined).length;

beforeAll(async () => {
  cut = await startFakeOpenAi({ apiKey: KEY_CUT, reply: ANSWER, usage: { prompt: 11, completion: 20 } });
  claude = await startAnthropicContinuer({ answer: ANSWER, usage: CLAUDE_USAGE, apiKey: KEY_CLAUDE });
  oai = await startOpenAiContinuer({ answer: ANSWER, usage: OAI_USAGE, apiKey: KEY_OAI });
  whole = await startFakeOpenAi({ apiKey: KEY_CUT, reply: ANSWER, usage: { prompt: 11, completion: 20 } });
  dir = await mkdtemp(join(tmpdir(), 'fbx-cont-'));
  const providersFile = join(dir, 'providers.json');
  await writeFile(providersFile, JSON.stringify([
    { id: 'local', kind: 'local' },
    { id: 'prov-cut', kind: 'openai', base_url: `${cut.url}/v1`, api_key_env: 'FAKE_CUT_KEY' },
    // Anthropic's kind takes prefill unless told otherwise.
    { id: 'prov-claude', kind: 'anthropic', base_url: claude.url, api_key_env: 'FAKE_CLAUDE_KEY' },
    // OpenAI's kind does not, unless the file (or the route) says so.
    { id: 'prov-oai', kind: 'openai', base_url: `${oai.url}/v1`, api_key_env: 'FAKE_OAI_KEY' },
    { id: 'prov-whole', kind: 'openai', base_url: `${whole.url}/v1`, api_key_env: 'FAKE_CUT_KEY' },
    { id: 'prov-vllm', kind: 'openai', base_url: `${oai.url}/v1`, api_key_env: 'FAKE_OAI_KEY', prefill: true },
  ]));
  gw = await startTestGateway({
    env: testEnv({
      LOG_LEVEL: 'info', PROVIDERS_FILE: providersFile, FAKE_CUT_KEY: KEY_CUT, FAKE_CLAUDE_KEY: KEY_CLAUDE, FAKE_OAI_KEY: KEY_OAI,
      // Roomy enough for a loaded machine; the stall case waits out the stall limit once, well
      // before the connection's idle limit would end it.
      UPSTREAM_FIRST_BYTE_TIMEOUT_MS: '3000', UPSTREAM_IDLE_TIMEOUT_MS: '5000', UPSTREAM_STALL_TIMEOUT_MS: '400',
    }),
  });
  key = await fundedKey(gw.url, 50);
}, 60_000);

afterAll(async () => {
  await gw?.close();
  await Promise.all([cut?.close(), claude?.close(), oai?.close(), whole?.close()]);
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

beforeEach(() => {
  for (const fake of [cut, claude, oai, whole]) fake.setScenario({ type: 'normal' });
});

/** Checks a rescued stream: one answer, one role chunk, one [DONE], no error, and money that adds up. */
async function expectRescued(result: StreamResult, continuer: FakeUpstream, usage: { input: number; output: number }, provider: string, cause: string): Promise<void> {
  expect(result.status).toBe(200);
  // On failure, what the gateway logged about the request says why it was not continued.
  const why = () => gw.logs().split('\n').filter((line) => line.includes(requestIdOf(result))).join('\n');
  expect(result.events.find((e) => e.error !== undefined), why()).toBeUndefined();
  expect(streamedText(result)).toBe(ANSWER);
  expect(roleChunks(result)).toBe(1);
  expect(result.done).toBe(true);
  expect(result.text.match(/data: \[DONE\]/g)?.length).toBe(1);
  // Every chunk is the same completion.
  expect(new Set(result.events.map((e) => e.id)).size).toBe(1);
  // The continuing route got the conversation with the answer so far as a trailing assistant message.
  const sent = continuer.requests.at(-1)?.body as Record<string, any>;
  expect(prefillOf(sent)).toBe(FIRST_PART.trimEnd());
  expect(sent.messages[0]).toMatchObject({ role: 'user' });

  const final = result.events.at(-1) as Record<string, any>;
  expect(final.choices).toEqual([]);
  const lines = final.usage.cost_details as Array<{ component: string; units: number; unit_price_usd: string; amount_usd: string }>;
  const first = lines.filter((l) => Number(l.unit_price_usd) === Number(PRICE_A.prompt) || Number(l.unit_price_usd) === Number(PRICE_A.completion));
  const second = lines.filter((l) => !first.includes(l));
  // Each leg at its own route's prices: the broken one counted here, the continuation as its vendor reported it.
  expect(first.map((l) => l.component).sort()).toEqual(['completion', 'prompt']);
  expect(second.map((l) => [l.component, l.units]).sort()).toEqual([['completion', usage.output], ['prompt', usage.input]]);
  const firstPrompt = first.find((l) => l.component === 'prompt')?.units ?? 0;
  const firstCompletion = first.find((l) => l.component === 'completion')?.units ?? 0;
  expect(firstCompletion).toBeGreaterThan(0);
  expect(final.usage.prompt_tokens).toBe(firstPrompt + usage.input);
  expect(final.usage.completion_tokens).toBe(firstCompletion + usage.output);
  expect(lines.reduce((sum, l) => sum + nano(l.amount_usd), 0n)).toBe(nano(final.usage.cost));
  // The continuation asks for no more than what is left of the output limit.
  expect(sent.max_tokens ?? sent.max_completion_tokens).toBe(100 - firstCompletion);

  // One charge for the request, equal to what the client was told, with both legs' lines.
  const requestId = requestIdOf(result);
  expect((await ledgerEntry(gw.url, key.accountId, requestId))?.cost_usd).toBe(final.usage.cost);
  const record = await recordOf(requestId);
  expect(record.cost_details).toEqual(lines);
  // The request's holds, the grown part included, ended with it.
  expect(gw.deps.admission.leasedRequests().filter((id) => id.startsWith(requestId))).toEqual([]);
  expect((record.attempts as Array<Record<string, any>>).map((a) => [a.provider, a.outcome, a.cause, a.leg ?? null])).toEqual([
    ['prov-cut', 'answered', null, null],
    ['prov-cut', 'failed', cause, 1],
    [provider, 'answered', 'continuation', 2],
  ]);
}

describe('a stream that breaks mid-answer goes on with the next route that takes prefill', () => {
  it('a cut connection: an Anthropic route continues the answer, billed as two legs', async () => {
    const model = await freshModel([{ provider: 'prov-cut' }, { provider: 'prov-claude' }]);
    cut.setScenario({ type: 'reset', afterFrames: CUT_AFTER });
    const result = await streamChat(gw.url, key.raw, { model, messages });
    await expectRescued(result, claude, CLAUDE_USAGE, 'prov-claude', 'reset');
  });

  it('a stream silent mid-answer past the stall limit continues too, without waiting for the idle limit', async () => {
    const model = await freshModel([{ provider: 'prov-cut' }, { provider: 'prov-claude' }]);
    cut.setScenario({ type: 'stall-stream', afterFrames: CUT_AFTER });
    const started = performance.now();
    const result = await streamChat(gw.url, key.raw, { model, messages });
    expect(performance.now() - started).toBeLessThan(3_000);
    await expectRescued(result, claude, CLAUDE_USAGE, 'prov-claude', 'timeout');
  });

  it('a stream-level error event: an OpenAI-compatible provider the providers file says takes prefill continues it', async () => {
    const model = await freshModel([{ provider: 'prov-cut' }, { provider: 'prov-vllm' }]);
    cut.setScenario({ type: 'stream-error', afterFrames: CUT_AFTER });
    const result = await streamChat(gw.url, key.raw, { model, messages });
    await expectRescued(result, oai, OAI_USAGE, 'prov-vllm', 'upstream_error');
  });

  it('a continuation that breaks too is continued by the next route: three legs, one answer, one charge', async () => {
    const model = await freshModel([{ provider: 'prov-cut' }, { provider: 'prov-claude' }, { provider: 'prov-vllm' }]);
    cut.setScenario({ type: 'reset', afterFrames: CUT_AFTER });
    // message_start, the text block's start, then two words.
    claude.setScenario({ type: 'reset', afterFrames: 4 });
    const result = await streamChat(gw.url, key.raw, { model, messages });
    expect(result.events.find((e) => e.error !== undefined)).toBeUndefined();
    expect(streamedText(result)).toBe(ANSWER);
    expect(roleChunks(result)).toBe(1);
    expect(prefillOf(oai.requests.at(-1)?.body)).toBe('Alpha bravo charlie delta echo');
    const usage = result.events.at(-1)?.usage;
    expect(usage.cost_details).toHaveLength(6);
    const requestId = requestIdOf(result);
    expect((await ledgerEntry(gw.url, key.accountId, requestId))?.cost_usd).toBe(usage.cost);
    const record = await recordOf(requestId);
    expect((record.attempts as Array<Record<string, any>>).map((a) => [a.provider, a.outcome, a.leg ?? null])).toEqual([
      ['prov-cut', 'answered', null],
      ['prov-cut', 'failed', 1],
      ['prov-claude', 'answered', 2],
      ['prov-claude', 'failed', 2],
      ['prov-vllm', 'answered', 3],
    ]);
  });

  it("a route's own prefill setting wins over its provider's", async () => {
    const model = await freshModel([{ provider: 'prov-cut' }, { provider: 'prov-claude', prefill: false }, { provider: 'prov-oai', prefill: true }]);
    cut.setScenario({ type: 'reset', afterFrames: CUT_AFTER });
    const before = claude.requests.length;
    const result = await streamChat(gw.url, key.raw, { model, messages });
    expect(claude.requests.length).toBe(before);
    await expectRescued(result, oai, OAI_USAGE, 'prov-oai', 'reset');
  });
});

describe('the other doors, served through translation, are continued the same way', () => {
  it('Responses streamed: one answer across the cut', async () => {
    const model = await freshModel([{ provider: 'prov-cut' }, { provider: 'prov-claude' }]);
    cut.setScenario({ type: 'reset', afterFrames: CUT_AFTER });
    const client = new OpenAI({ apiKey: key.raw, baseURL: `${gw.url}/v1`, maxRetries: 0 });
    const stream = await client.responses.create({ model, input: messages[0]?.content ?? '', stream: true });
    let text = '';
    let completed: Record<string, any> | undefined;
    for await (const event of stream) {
      if (event.type === 'response.output_text.delta') text += event.delta;
      if (event.type === 'response.completed') completed = event.response as unknown as Record<string, any>;
    }
    expect(text).toBe(ANSWER);
    expect(completed?.usage?.output_tokens).toBeGreaterThan(CLAUDE_USAGE.output);
  });

  it('Messages streamed (translated to an OpenAI-kind first route): one answer across the cut', async () => {
    const model = await freshModel([{ provider: 'prov-cut' }, { provider: 'prov-claude' }]);
    cut.setScenario({ type: 'reset', afterFrames: CUT_AFTER });
    const anthropic = new Anthropic({ apiKey: key.raw, baseURL: gw.url, maxRetries: 0 });
    const stream = anthropic.messages.stream({ model, max_tokens: 100, messages: [{ role: 'user', content: messages[0]?.content ?? '' }] });
    expect(await stream.finalText()).toBe(ANSWER);
  });
});

describe('where no route can continue, the stream ends as it always did', () => {
  /** The broken end: the first part, an error chunk naming the break, the usage produced at the first route's price, [DONE]. */
  async function expectBroken(result: StreamResult): Promise<Record<string, any>> {
    expect(result.status).toBe(200);
    expect(streamedText(result)).toBe(FIRST_PART);
    const errorChunk = result.events.find((e) => e.error !== undefined);
    expect(errorChunk?.choices?.[0]?.finish_reason).toBe('error');
    expect(errorChunk?.error.message).not.toMatch(/prefill|assistant/i);
    expect(result.done).toBe(true);
    const usage = result.events.at(-1)?.usage;
    expect(usage.cost_details.every((l: { unit_price_usd: string }) => [PRICE_A.prompt, PRICE_A.completion].map(Number).includes(Number(l.unit_price_usd)))).toBe(true);
    expect((await ledgerEntry(gw.url, key.accountId, requestIdOf(result)))?.cost_usd).toBe(usage.cost);
    return errorChunk as Record<string, any>;
  }

  it('a fallback without prefill is never asked; the error names the cut', async () => {
    const model = await freshModel([{ provider: 'prov-cut' }, { provider: 'prov-oai' }]);
    cut.setScenario({ type: 'reset', afterFrames: CUT_AFTER });
    const before = oai.requests.length;
    const result = await streamChat(gw.url, key.raw, { model, messages });
    const errorChunk = await expectBroken(result);
    expect(errorChunk.error.type).toBe('upstream_error');
    expect(oai.requests.length).toBe(before);
    const record = await recordOf(requestIdOf(result));
    expect((record.attempts as Array<Record<string, any>>).map((a) => [a.provider, a.outcome])).toEqual([['prov-cut', 'answered']]);
  });

  it('a fallback that refuses the prefill: the error still names the cut, not the refusal', async () => {
    const model = await freshModel([{ provider: 'prov-cut' }, { provider: 'prov-vllm' }]);
    cut.setScenario({ type: 'stream-error', afterFrames: CUT_AFTER });
    oai.setScenario({ type: 'error', status: 400, body: JSON.stringify({ error: { message: 'Assistant prefill is not supported', type: 'invalid_request_error' } }) } as FakeScenario);
    const before = oai.requests.length;
    const result = await streamChat(gw.url, key.raw, { model, messages });
    const errorChunk = await expectBroken(result);
    expect(errorChunk.error.message).toMatch(/mid-stream/);
    expect(oai.requests.length).toBe(before + 1);
    const record = await recordOf(requestIdOf(result));
    expect((record.attempts as Array<Record<string, any>>).map((a) => [a.provider, a.outcome, a.status ?? null])).toEqual([['prov-cut', 'answered', null], ['prov-cut', 'failed', null], ['prov-vllm', 'failed', 400]]);
  });

  it('a hold that cannot grow to cover the second leg: no second leg', async () => {
    const model = await freshModel([{ provider: 'prov-cut' }, { provider: 'prov-claude' }]);
    const body = { model, messages, stream: true };
    // A key whose lifetime cap leaves room for the first leg's hold only.
    const probe = await fundedKey(gw.url, 1);
    const quoted = await call(gw.url, 'POST', '/v1/quote', { token: probe.raw, body: { endpoint: '/v1/chat/completions', body } });
    expect(quoted.status).toBe(200);
    const hold = Number(quoted.body.data.hold_usd);
    const capped = await fundedKey(gw.url, 1, { limits: { spend_cap_usd: { lifetime: Number((hold + 0.000001).toFixed(6)) } } });
    cut.setScenario({ type: 'reset', afterFrames: CUT_AFTER });
    const before = claude.requests.length;
    const result = await streamChat(gw.url, capped.raw, { model, messages });
    expect(result.status).toBe(200);
    expect(streamedText(result)).toBe(FIRST_PART);
    expect(result.events.find((e) => e.error !== undefined)?.choices?.[0]?.finish_reason).toBe('error');
    expect(result.done).toBe(true);
    expect(claude.requests.length).toBe(before);
    // Refused for the hold, not for want of a route that takes prefill.
    expect(gw.logs()).toContain('the hold cannot cover another leg');
    const usage = result.events.at(-1)?.usage;
    expect((await ledgerEntry(gw.url, capped.accountId, requestIdOf(result)))?.cost_usd).toBe(usage.cost);
  });
});

describe('a request too long for a route', () => {
  it('context_length_exceeded moves on to the next route, charging only the route that answered', async () => {
    const model = await freshModel([{ provider: 'prov-oai' }, { provider: 'prov-cut' }]);
    oai.setScenario({ type: 'error', status: 400, body: JSON.stringify({ error: { message: "This model's maximum context length is 8192 tokens", type: 'invalid_request_error', param: 'messages', code: 'context_length_exceeded' } }) });
    const res = await chat(gw.url, key.raw, { model, messages });
    expect(res.status).toBe(200);
    expect(res.body.choices[0].message.content).toBe(ANSWER);
    expect(res.body.provider).toBe('prov-cut');
    const requestId = res.headers.get('x-service-request-id') ?? '';
    expect((await ledgerEntry(gw.url, key.accountId, requestId))?.cost_usd).toBe(res.body.usage.cost);
    const record = await recordOf(requestId);
    expect((record.attempts as Array<Record<string, any>>).map((a) => [a.provider, a.outcome, a.cause, a.status])).toEqual([['prov-oai', 'failed', 'context_length_exceeded', 400], ['prov-cut', 'answered', null, null]]);
  });
});

describe('a non-streamed answer whose upstream breaks mid-body', () => {
  it.each([['cut', 'cut' as const], ['stalled', 'stall' as const]])('%s: answered in full by the next route from the start, billed there only', async (_name, then) => {
    const model = await freshModel([{ provider: 'prov-cut' }, { provider: 'prov-whole' }]);
    cut.setScenario({ type: 'broken-json', then });
    const res = await chat(gw.url, key.raw, { model, messages });
    expect(res.status).toBe(200);
    expect(res.body.choices[0].message.content).toBe(ANSWER);
    expect(res.body.provider).toBe('prov-whole');
    const requestId = res.headers.get('x-service-request-id') ?? '';
    expect((await ledgerEntry(gw.url, key.accountId, requestId))?.cost_usd).toBe(res.body.usage.cost);
    expect(res.body.usage.cost).toBe(Number((11 * Number(PRICE_B.prompt) + 20 * Number(PRICE_B.completion)).toFixed(9)));
    const record = await recordOf(requestId);
    expect((record.attempts as Array<Record<string, any>>).map((a) => [a.provider, a.outcome])).toEqual([['prov-cut', 'failed'], ['prov-whole', 'answered']]);
  });
});
