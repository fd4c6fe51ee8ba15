import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, call } from '../../helpers/admin-client.js';
import { startTestGateway, testEnv, type TestGateway } from '../../helpers/test-gateway.js';
import { fundedKey, streamChat } from './chat-client.js';

let gw: TestGateway;

beforeAll(async () => {
  gw = await startTestGateway({ env: testEnv({ LOG_LEVEL: 'warn' }) });
});
afterAll(async () => gw?.close());

const entry = (completion: string) => ({
  name: 'Priced echo',
  kind: 'chat',
  provider: 'local',
  upstream_model: 'echo',
  tokenizer: 'o200k',
  pricing: { prompt: '0.000001', completion, input_cache_read: '0.0000001' },
  capabilities: ['TOOLS'],
  context_length: 8192,
  max_output_tokens: 512,
});

describe('price versions', () => {
  it('bills a request at the prices it was admitted with, however the catalog changes meanwhile', async () => {
    const admin = adminClient(gw.url);
    expect((await admin.call('PUT', '/models/test/priced-echo', entry('0.000002'))).status).toBe(200);
    await gw.deps.catalog.reload();
    const before = gw.deps.catalog.get('test/priced-echo');
    const { accountId, raw } = await fundedKey(gw.url, 5);
    const body = { model: 'test/priced-echo', stream: true, max_tokens: 40, messages: [{ role: 'user', content: 'a b c d [[local:chunks=6]] [[local:slow=150]]' }] };
    const running = streamChat(gw.url, raw, body);
    // The price changes while the stream runs.
    await new Promise((r) => setTimeout(r, 300));
    expect((await admin.call('PUT', '/models/test/priced-echo', entry('0.00002'))).status).toBe(200);
    await gw.deps.catalog.reload();
    const after = gw.deps.catalog.get('test/priced-echo');
    expect(after?.priceVersion).not.toBe(before?.priceVersion);

    const first = await running;
    const usage = first.events.at(-1)?.usage as { cost: number; completion_tokens: number; prompt_tokens: number; cost_details: Array<{ component: string; amount_usd: string; unit_price_usd: string }> };
    expect(usage.cost_details.find((l) => l.component === 'completion')?.unit_price_usd).toBe('0.000002');
    const lineSum = usage.cost_details.reduce((t, l) => t + BigInt(Math.round(Number(l.amount_usd) * 1e9)), 0n);
    expect(lineSum).toBe(BigInt(Math.round(usage.cost * 1e9)));
    const requestId = first.headers.get('x-service-request-id') ?? '';
    const ledger = await gw.deps.c.ledger.findOne({ _id: requestId });
    expect(ledger?.price_version).toBe(before?.priceVersion);
    expect(ledger?.cost).toBe(BigInt(Math.round(usage.cost * 1e9)));
    expect(ledger?.account_id).toBe(accountId);

    const second = await call(gw.url, 'POST', '/v1/chat/completions', { token: raw, body: { ...body, stream: false, messages: [{ role: 'user', content: 'a b c d' }] } });
    expect(second.status).toBe(200);
    const lines = second.body.usage.cost_details as Array<{ component: string; unit_price_usd: string }>;
    expect(lines.find((l) => l.component === 'completion')?.unit_price_usd).toBe('0.00002');
    const secondEntry = await gw.deps.c.ledger.findOne({ _id: second.headers.get('x-service-request-id') ?? '' });
    expect(secondEntry?.price_version).toBe(after?.priceVersion);
  });
});
