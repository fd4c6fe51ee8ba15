import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anthropicInputTokens, openAiPromptTokens } from '../../fixtures/upstreams/vendor-counting.js';
import { adminClient, call } from '../../helpers/admin-client.js';
import { probeHold, startCountingGateway, usdText, type CountingGateway, type StatedHold } from './vendor-counting-gateway.js';
import { keyLifetimeSpend } from '../../helpers/key-spend.js';

let cg: CountingGateway;
beforeAll(async () => {
  cg = await startCountingGateway();
}, 120_000);
afterAll(async () => cg?.close());

const WORDS = 'the quick brown fox jumps over lazy dogs while seventeen careful engineers measure every billed token of 東京 and café résumés, naïve façades 🎉'.split(' ');
/** Deterministic prose of about `n` words, mixing English, accents, CJK and emoji. */
const prose = (n: number, salt = 0): string => Array.from({ length: n }, (_, i) => WORDS[(i * 7 + salt) % WORDS.length]).join(' ');

const schemaOf = (fields: number, words: number) => ({
  type: 'object',
  properties: Object.fromEntries(Array.from({ length: fields }, (_, i) => [`field_${i}`, { type: 'string', description: prose(words, i) }])),
  required: ['field_0'],
});
const chatTools = (n: number, words: number) =>
  Array.from({ length: n }, (_, i) => ({ type: 'function', function: { name: `tool_${i}`, description: prose(words, i), parameters: schemaOf(3, 20) } }));

async function png(width: number, height: number): Promise<string> {
  return (await sharp({ create: { width, height, channels: 3, background: { r: 10, g: 120, b: 200 } } }).png().toBuffer()).toString('base64');
}

interface Kind {
  name: string;
  path: string;
  body: () => Promise<Record<string, unknown>>;
  /** What the upstream counted on the request it received. */
  upstreamCount: () => number;
}

const last = (fake: 'openai' | 'anthropic') => cg[fake].requests.at(-1)!.body as Record<string, unknown>;
const HI = [{ role: 'user', content: 'hi' }];

const KINDS: Kind[] = [
  { name: 'chat: 40 big tools (gpt-4o)', path: '/v1/chat/completions', body: async () => ({ model: 'fake/gpt-4o', max_tokens: 1, messages: HI, tools: chatTools(40, 300) }), upstreamCount: () => openAiPromptTokens(last('openai')) },
  { name: 'chat: 40 big tools (claude)', path: '/v1/chat/completions', body: async () => ({ model: 'fake/claude', max_tokens: 1, messages: HI, tools: chatTools(40, 300) }), upstreamCount: () => anthropicInputTokens(last('anthropic')) },
  { name: 'chat: big response_format schema', path: '/v1/chat/completions', body: async () => ({ model: 'fake/gpt-4o', max_tokens: 1, messages: HI, response_format: { type: 'json_schema', json_schema: { name: 'big', schema: schemaOf(200, 60) } } }), upstreamCount: () => openAiPromptTokens(last('openai')) },
  {
    name: 'responses: tools + text.format + instructions',
    path: '/v1/responses',
    body: async () => ({
      model: 'fake/gpt-4o', max_output_tokens: 16, input: 'hi', store: false, instructions: prose(3000),
      tools: Array.from({ length: 20 }, (_, i) => ({ type: 'function', name: `t_${i}`, description: prose(300, i), parameters: schemaOf(3, 20) })),
      text: { format: { type: 'json_schema', name: 'out', schema: schemaOf(50, 40) } },
    }),
    upstreamCount: () => openAiPromptTokens(last('openai')),
  },
  {
    name: 'messages relay: tools + system',
    path: '/v1/messages',
    body: async () => ({ model: 'fake/claude', max_tokens: 1, system: prose(3000), messages: HI, tools: Array.from({ length: 30 }, (_, i) => ({ name: `t_${i}`, description: prose(300, i), input_schema: schemaOf(3, 20) })) }),
    upstreamCount: () => anthropicInputTokens(last('anthropic')),
  },
  {
    name: 'chat: images 1024² + 2000×500 (gpt-4o)',
    path: '/v1/chat/completions',
    body: async () => ({ model: 'fake/gpt-4o', max_tokens: 1, messages: [{ role: 'user', content: [{ type: 'text', text: 'compare' }, ...(await Promise.all([png(1024, 1024), png(2000, 500)])).map((b) => ({ type: 'image_url', image_url: { url: `data:image/png;base64,${b}` } }))] }] }),
    upstreamCount: () => openAiPromptTokens(last('openai')),
  },
  {
    name: 'messages relay: images 1568² + 800×600',
    path: '/v1/messages',
    body: async () => ({ model: 'fake/claude', max_tokens: 1, messages: [{ role: 'user', content: [...(await Promise.all([png(1568, 1568), png(800, 600)])).map((data) => ({ type: 'image', source: { type: 'base64', media_type: 'image/png', data } })), { type: 'text', text: 'compare' }] }] }),
    upstreamCount: () => anthropicInputTokens(last('anthropic')),
  },
  { name: 'chat: max_completion_tokens 5 + max_tokens 5000', path: '/v1/chat/completions', body: async () => ({ model: 'fake/gpt-4o', max_completion_tokens: 5, max_tokens: 5000, messages: [{ role: 'user', content: prose(200) }] }), upstreamCount: () => openAiPromptTokens(last('openai')) },
];

interface Row { kind: string; 'hold input tokens': number; 'upstream input tokens': number; 'hold $': string; 'charge $': string; 'cap $': string }
const rows: Row[] = [];
afterAll(() => console.table(rows));

/** A funded account with a key whose day cap is just above `hold`. */
async function cappedKey(hold: StatedHold): Promise<{ accountId: string; keyId: string; raw: string; cap: bigint }> {
  const admin = adminClient(cg.gw.url);
  const accountId = await admin.createAccount();
  await admin.topup(accountId, 5);
  const cap = hold.nano + 1_000n;
  const { keyId, raw } = await admin.mintKey(accountId, { limits: { spend_cap_usd: { day: usdText(cap) } } });
  return { accountId, keyId, raw, cap };
}

describe('each input kind is held at least at what its upstream bills', () => {
  it.each(KINDS.map((k) => [k.name, k] as const))('%s', async (_name, kind) => {
    const body = await kind.body();
    const hold = await probeHold(cg.gw.url, kind.path, body);
    const { accountId, keyId, raw, cap } = await cappedKey(hold);
    const res = await call(cg.gw.url, 'POST', kind.path, { token: raw, body });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const upstream = kind.upstreamCount();
    expect(upstream).toBeLessThanOrEqual(hold.inputTokens);
    const charges = await cg.gw.deps.c.ledger.find({ account_id: accountId, kind: 'charge' }).toArray();
    expect(charges).toHaveLength(1);
    const [charge] = charges;
    expect(charge!.cost).toBeLessThanOrEqual(hold.nano);
    expect(charge!.absorbed).toBe(0n);
    expect(charge!.over_limit).toBeUndefined();
    const spend = await keyLifetimeSpend(cg.gw.deps.c, keyId);
    expect(spend).toBe(charge!.cost);
    expect(spend).toBeLessThanOrEqual(cap);
    rows.push({ kind: kind.name, 'hold input tokens': hold.inputTokens, 'upstream input tokens': upstream, 'hold $': usdText(hold.nano), 'charge $': usdText(charge!.cost), 'cap $': usdText(cap) });
  }, 60_000);

  it('sends only the held output limit: max_completion_tokens 5 with max_tokens 5000 produces 5', async () => {
    const sent = cg.openai.requests.map((r) => r.body as Record<string, unknown>).filter((b) => b.max_tokens === 5 || b.max_completion_tokens === 5);
    expect(sent.length).toBeGreaterThan(0);
    for (const b of sent) expect([b.max_tokens, b.max_completion_tokens].filter((n) => n !== undefined)).toEqual([5]);
  });
});

describe('a burst of big-tools requests on a $0.01 balance', () => {
  it('admits only what the balance covers; nothing is absorbed', async () => {
    const body = { model: 'fake/gpt-4o', max_tokens: 1, messages: HI, tools: chatTools(3, 120) };
    const hold = await probeHold(cg.gw.url, '/v1/chat/completions', body);
    const admin = adminClient(cg.gw.url);
    const accountId = await admin.createAccount();
    await admin.topup(accountId, '0.01');
    const { raw } = await admin.mintKey(accountId, { limits: { rpm: 10_000 } });
    const outcomes = await Promise.all(Array.from({ length: 100 }, () => call(cg.gw.url, 'POST', '/v1/chat/completions', { token: raw, body })));
    const ok = outcomes.filter((r) => r.status === 200);
    for (const r of outcomes.filter((o) => o.status !== 200)) expect(r.body.error.code).toBe('insufficient_credits');
    expect(ok.length).toBeGreaterThanOrEqual(Number(10_000_000n / hold.nano));
    const charges = await cg.gw.deps.c.ledger.find({ account_id: accountId, kind: 'charge' }).toArray();
    expect(charges).toHaveLength(ok.length);
    const cost = charges.reduce((s, c) => s + c.cost, 0n);
    expect(cost).toBeLessThanOrEqual(10_000_000n);
    expect(charges.reduce((s, c) => s + c.absorbed, 0n)).toBe(0n);
    expect((await cg.gw.deps.accounts.get(accountId)).balance).toBeGreaterThanOrEqual(0n);
    console.log(`burst: hold $${usdText(hold.nano)}, admitted ${ok.length}/100, charged $${usdText(cost)} of $0.01`);
  }, 120_000);
});
