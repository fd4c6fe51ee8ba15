import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, call } from '../../helpers/admin-client.js';
import { startTestGateway, testEnv, type TestGateway } from '../../helpers/test-gateway.js';
import { waitFor } from '../../helpers/wait-for.js';
import { fundedKey, type FundedKey } from '../chat/chat-client.js';
import { waitRecord } from '../ledger/records/records-client.js';
import { entryCount, hitsCounted, idOf, ledgerOf, nano, OPT_IN, post, postStream, untilEntries } from './cache-client.js';

let gw: TestGateway;
let owner: FundedKey;

/** Echo priced like local/echo, whose hits pay a tenth of the original answer. */
const TENTH = 'test/tenth-echo';
/** Echo whose hits pay the full original price. */
const FULL = 'test/full-echo';
/** Embeddings whose hits pay half. */
const HALF_EMBED = 'test/half-embed';

const echo = (cacheHit: string) => ({
  name: 'Cached echo', kind: 'chat', provider: 'local', upstream_model: 'echo', tokenizer: 'o200k',
  pricing: { prompt: '0.000001', completion: '0.000002', cache_hit: cacheHit },
  capabilities: ['TOOLS', 'REASONING'], context_length: 32768, max_output_tokens: 512,
});

beforeAll(async () => {
  gw = await startTestGateway({ env: testEnv({ LOG_LEVEL: 'warn' }) });
  const admin = adminClient(gw.url);
  expect((await admin.call('PUT', `/models/${TENTH}`, echo('0.1'))).status).toBe(200);
  expect((await admin.call('PUT', `/models/${FULL}`, echo('1'))).status).toBe(200);
  const embed = { name: 'Cached embed', kind: 'embedding', provider: 'local', upstream_model: 'hashed-ngrams', pricing: { prompt: '0.00000001', cache_hit: '0.5' }, capabilities: ['DIMENSIONS'], context_length: 8192, dimensions: 384 };
  expect((await admin.call('PUT', `/models/${HALF_EMBED}`, embed)).status).toBe(200);
  await gw.deps.catalog.reload();
  owner = await fundedKey(gw.url, 5);
}, 60_000);
afterAll(async () => gw?.close());

/** A tenth of `cost`, rounded half up to the nano-USD (the rule for TENTH). */
const tenth = (cost: bigint) => (cost + 5n) / 10n;

/** Checks a hit's usage: the original counts, its own cost and one `cache_hit` line, and the same charge in the ledger. */
async function expectCharged(requestId: string, usage: { cost: number; cost_details: Array<{ component: string; amount_usd: string }> }, expected: bigint): Promise<void> {
  expect(nano(usage.cost)).toBe(expected);
  const entry = await ledgerOf(gw, requestId);
  expect(entry.cost).toBe(expected);
  expect(entry.charged).toBe(expected);
  expect(entry.cost_details?.map((l) => l.component)).toEqual(usage.cost_details.map((l) => l.component));
}

describe('exact response cache: Chat Completions', () => {
  const body = { model: TENTH, temperature: 0.2, messages: [{ role: 'user', content: 'cache me [[local:chunks=5]]' }] };

  it('misses, then serves the same answer non-streamed and streamed, each charged a tenth with its own line', async () => {
    const before = await entryCount(gw);
    const miss = await post(gw.url, '/v1/chat/completions', owner.raw, body);
    expect(miss.status).toBe(200);
    expect(miss.headers.get('x-farebox-cache')).toBe('miss');
    const full = nano(miss.body.usage.cost);
    expect(full).toBeGreaterThan(0n);
    await untilEntries(gw, before + 1);

    // Key order differs, stream options and user differ: still the same request.
    const reordered = { messages: body.messages, user: 'someone', temperature: 0.2, model: TENTH };
    const hit = await post(gw.url, '/v1/chat/completions', owner.raw, reordered);
    expect(hit.status).toBe(200);
    expect(hit.headers.get('x-farebox-cache')).toBe('hit');
    expect(hit.body.choices[0].message.content).toBe(miss.body.choices[0].message.content);
    expect(hit.body.id).not.toBe(miss.body.id);
    expect(hit.body.usage.prompt_tokens).toBe(miss.body.usage.prompt_tokens);
    expect(hit.body.usage.completion_tokens).toBe(miss.body.usage.completion_tokens);
    expect(hit.body.usage.cost_details).toEqual([{ component: 'cache_hit', units: 1, unit_price_usd: hit.body.usage.cost_details[0].amount_usd, amount_usd: hit.body.usage.cost_details[0].amount_usd }]);
    await expectCharged(idOf(hit), hit.body.usage, tenth(full));
    await expectCharged(idOf(miss), miss.body.usage, full);

    const streamed = await postStream(gw.url, '/v1/chat/completions', owner.raw, { ...body, stream_options: { include_usage: true } });
    expect(streamed.status).toBe(200);
    expect(streamed.headers.get('x-farebox-cache')).toBe('hit');
    expect(streamed.done).toBe(true);
    const last = streamed.events.at(-1)?.data;
    expect(last.choices).toEqual([]);
    expect(last.usage.completion_tokens).toBe(miss.body.usage.completion_tokens);
    const text = streamed.events.map((e) => e.data.choices?.[0]?.delta?.content ?? '').join('');
    expect(text).toBe(miss.body.choices[0].message.content);
    await expectCharged(idOf(streamed), last.usage, tenth(full));

    // The receipt says what happened and which answer was served.
    await waitRecord(gw.url, idOf(hit));
    const receipt = await call(gw.url, 'GET', `/v1/requests/${idOf(hit)}/receipt`, { token: owner.raw });
    expect(receipt.status).toBe(200);
    expect(receipt.body.data.receipt).toMatchObject({ outcome: 'cache_hit', cache_hit_of: idOf(miss), cost_details: [{ component: 'cache_hit' }] });
  });

  it('stores a streamed miss only once it finished, and serves it non-streamed', async () => {
    const streamBody = { model: TENTH, messages: [{ role: 'user', content: 'stream then plain [[local:chunks=8]]' }] };
    const before = await entryCount(gw);
    // A client that leaves mid-stream gets nothing stored.
    const cut = await postStream(gw.url, '/v1/chat/completions', owner.raw, { ...streamBody, messages: [{ role: 'user', content: 'cut me [[local:chunks=8]] [[local:slow=80]]' }] }, OPT_IN, 2);
    expect(cut.status).toBe(200);
    // A stream that failed upstream is not stored either.
    const failed = await postStream(gw.url, '/v1/chat/completions', owner.raw, { ...streamBody, messages: [{ role: 'user', content: 'fail me [[local:chunks=8]] [[local:fail-after=3]]' }] });
    expect(failed.events.some((e) => e.data.error !== undefined)).toBe(true);

    const miss = await postStream(gw.url, '/v1/chat/completions', owner.raw, streamBody);
    expect(miss.headers.get('x-farebox-cache')).toBe('miss');
    const missUsage = miss.events.at(-1)?.data.usage;
    await untilEntries(gw, before + 1);
    await new Promise((r) => setTimeout(r, 200));
    // Only the finished stream was kept.
    expect(await entryCount(gw)).toBe(before + 1);

    const hit = await post(gw.url, '/v1/chat/completions', owner.raw, streamBody);
    expect(hit.headers.get('x-farebox-cache')).toBe('hit');
    expect(hit.body.choices[0].message.content).toBe(miss.events.map((e) => e.data.choices?.[0]?.delta?.content ?? '').join(''));
    expect(hit.body.choices[0].finish_reason).toBe('stop');
    expect(hit.body.usage.prompt_tokens).toBe(missUsage.prompt_tokens);
    await expectCharged(idOf(hit), hit.body.usage, tenth(nano(missUsage.cost)));

    const again = await postStream(gw.url, '/v1/chat/completions', owner.raw, { ...streamBody, messages: [{ role: 'user', content: 'fail me [[local:chunks=8]] [[local:fail-after=3]]' }] });
    expect(again.headers.get('x-farebox-cache')).toBe('miss');
  });

  it('keeps tool calls whichever way the answer was first made', async () => {
    const tools = [{ type: 'function', function: { name: 'lookup', description: 'looks up', parameters: { type: 'object', properties: { q: { type: 'string' } } } } }];
    const toolBody = { model: TENTH, tools, messages: [{ role: 'user', content: 'call it [[local:tool=lookup]]' }] };
    const miss = await postStream(gw.url, '/v1/chat/completions', owner.raw, toolBody);
    expect(miss.headers.get('x-farebox-cache')).toBe('miss');
    const streamedCall = miss.events.flatMap((e) => e.data.choices?.[0]?.delta?.tool_calls ?? []);
    expect(streamedCall.length).toBeGreaterThan(0);
    const hit = await waitFor('hit', async () => {
      const res = await post(gw.url, '/v1/chat/completions', owner.raw, toolBody);
      return res.headers.get('x-farebox-cache') === 'hit' ? res : undefined;
    }, { timeoutMs: 3_000 });
    const call = hit.body.choices[0].message.tool_calls[0];
    expect(call.function.name).toBe('lookup');
    expect(call.id).toBe(streamedCall[0].id);
    expect(call.function.arguments).toBe(streamedCall.map((c: any) => c.function?.arguments ?? '').join(''));
    expect(hit.body.choices[0].finish_reason).toBe(miss.events.find((e) => e.data.choices?.[0]?.finish_reason)?.data.choices[0].finish_reason);
  });

  it('misses for another account, a changed temperature, and bypasses on no-cache; not opted in: no header', async () => {
    const once = { ...body, messages: [{ role: 'user', content: 'isolation' }] };
    const first = await post(gw.url, '/v1/chat/completions', owner.raw, once);
    expect(first.headers.get('x-farebox-cache')).toBe('miss');
    await waitFor('stored', async () => (await post(gw.url, '/v1/chat/completions', owner.raw, once)).headers.get('x-farebox-cache') === 'hit', { timeoutMs: 3_000 });

    const other = await fundedKey(gw.url, 1);
    const foreign = await post(gw.url, '/v1/chat/completions', other.raw, once);
    expect(foreign.headers.get('x-farebox-cache')).toBe('miss');
    await expectCharged(idOf(foreign), foreign.body.usage, nano(first.body.usage.cost));

    const warmer = await post(gw.url, '/v1/chat/completions', owner.raw, { ...once, temperature: 0.3 });
    expect(warmer.headers.get('x-farebox-cache')).toBe('miss');

    const bypass = await post(gw.url, '/v1/chat/completions', owner.raw, once, { 'cache-control': 'no-cache, max-age=600' });
    expect(bypass.headers.get('x-farebox-cache')).toBe('bypass');
    expect(nano(bypass.body.usage.cost)).toBe(nano(first.body.usage.cost));

    const plain = await post(gw.url, '/v1/chat/completions', owner.raw, once, {});
    expect(plain.headers.get('x-farebox-cache')).toBeNull();
    expect(nano(plain.body.usage.cost)).toBe(nano(first.body.usage.cost));
  });

  it('opts in by the key setting cache_ttl_seconds', async () => {
    const admin = adminClient(gw.url);
    const { raw } = await admin.mintKey(owner.accountId, { limits: { cache_ttl_seconds: 300 } });
    const info = await call(gw.url, 'GET', '/v1/key', { token: raw });
    expect(info.body.data.limits.cache_ttl_seconds).toBe(300);
    const keyed = { model: TENTH, messages: [{ role: 'user', content: 'by key setting' }] };
    expect((await post(gw.url, '/v1/chat/completions', raw, keyed, {})).headers.get('x-farebox-cache')).toBe('miss');
    await waitFor('hit', async () => (await post(gw.url, '/v1/chat/completions', raw, keyed, {})).headers.get('x-farebox-cache') === 'hit', { timeoutMs: 3_000 });
    expect((await admin.call('POST', `/accounts/${owner.accountId}/keys`, { name: 'bad', limits: { cache_ttl_seconds: -1 } })).status).toBe(400);
  });
});

describe('exact response cache: Responses, Messages, embeddings', () => {
  it('Responses: miss, then hits non-streamed and streamed, charged by the rule', async () => {
    const body = { model: TENTH, input: 'responses door cache' };
    const miss = await post(gw.url, '/v1/responses', owner.raw, body);
    expect(miss.status).toBe(200);
    expect(miss.headers.get('x-farebox-cache')).toBe('miss');
    const full = nano(miss.body.usage.cost);
    await waitFor('hit', async () => {
      const hit = await post(gw.url, '/v1/responses', owner.raw, body);
      if (hit.headers.get('x-farebox-cache') !== 'hit') return false;
      expect(hit.body.output_text ?? hit.body.output?.[0]?.content?.[0]?.text).toBe(miss.body.output_text ?? miss.body.output?.[0]?.content?.[0]?.text);
      expect(hit.body.usage.input_tokens).toBe(miss.body.usage.input_tokens);
      await expectCharged(idOf(hit), hit.body.usage, tenth(full));
      return true;
    }, { timeoutMs: 3_000 });
    const streamed = await postStream(gw.url, '/v1/responses', owner.raw, body);
    expect(streamed.headers.get('x-farebox-cache')).toBe('hit');
    const completed = streamed.events.find((e) => e.event === 'response.completed')?.data;
    expect(completed?.response.usage.output_tokens).toBe(miss.body.usage.output_tokens);
    expect(streamed.events.at(-1)?.event).toBe('response.completed');
    await expectCharged(idOf(streamed), completed.response.usage, tenth(full));
  });

  it('Messages: streamed miss, then hits streamed and not, charged by the rule', async () => {
    const body = { model: TENTH, max_tokens: 200, messages: [{ role: 'user', content: 'messages door cache [[local:chunks=4]]' }] };
    const headers = { ...OPT_IN, 'anthropic-version': '2023-06-01' };
    const miss = await postStream(gw.url, '/v1/messages', owner.raw, body, headers);
    expect(miss.headers.get('x-farebox-cache')).toBe('miss');
    const delta = miss.events.find((e) => e.event === 'message_delta')?.data;
    const full = nano(delta.usage.cost);
    const text = (r: typeof miss) => r.events.filter((e) => e.event === 'content_block_delta').map((e) => e.data.delta.text ?? '').join('');
    await waitFor('hit', async () => {
      const hit = await post(gw.url, '/v1/messages', owner.raw, body, headers);
      if (hit.headers.get('x-farebox-cache') !== 'hit') return false;
      expect(hit.body.content[0].text).toBe(text(miss));
      expect(hit.body.usage.output_tokens).toBe(delta.usage.output_tokens);
      await expectCharged(idOf(hit), hit.body.usage, tenth(full));
      return true;
    }, { timeoutMs: 3_000 });
    const streamed = await postStream(gw.url, '/v1/messages', owner.raw, body, headers);
    expect(streamed.headers.get('x-farebox-cache')).toBe('hit');
    expect(text(streamed)).toBe(text(miss));
    expect(streamed.events.at(-1)?.event).toBe('message_stop');
    const hitDelta = streamed.events.find((e) => e.event === 'message_delta')?.data;
    await expectCharged(idOf(streamed), hitDelta.usage, tenth(full));
  });

  it('embeddings: miss, then a hit with the same vectors at half the price', async () => {
    const body = { model: HALF_EMBED, input: ['one cached input', 'and another'] };
    const miss = await post(gw.url, '/v1/embeddings', owner.raw, body);
    expect(miss.status).toBe(200);
    expect(miss.headers.get('x-farebox-cache')).toBe('miss');
    const full = nano(miss.body.usage.cost);
    expect(full).toBeGreaterThan(0n);
    await waitFor('hit', async () => {
      const hit = await post(gw.url, '/v1/embeddings', owner.raw, { ...body, user: 'another-user' });
      if (hit.headers.get('x-farebox-cache') !== 'hit') return false;
      expect(hit.body.data).toEqual(miss.body.data);
      expect(hit.body.usage.prompt_tokens).toBe(miss.body.usage.prompt_tokens);
      await expectCharged(idOf(hit), hit.body.usage, (full + 1n) / 2n);
      return true;
    }, { timeoutMs: 3_000 });
  });
});

describe('a hit is still admitted', () => {
  it('refuses a disabled key (401) and a key over its spend cap (403)', async () => {
    const admin = adminClient(gw.url);
    const body = { model: TENTH, messages: [{ role: 'user', content: 'admission of hits' }] };
    const first = await post(gw.url, '/v1/chat/completions', owner.raw, body);
    expect(first.status).toBe(200);
    await waitFor('hit', async () => (await post(gw.url, '/v1/chat/completions', owner.raw, body)).headers.get('x-farebox-cache') === 'hit', { timeoutMs: 3_000 });

    const capped = await admin.mintKey(owner.accountId, { limits: { spend_cap_usd: { lifetime: 0 } } });
    const hitsBefore = await hitsCounted(gw);
    const overCap = await post(gw.url, '/v1/chat/completions', capped.raw, body);
    expect(overCap.status).toBe(403);
    expect(overCap.body.error.code).toBe('key_limit_exceeded');
    // Refused as a hit: the stored answer was found, and its price did not fit the cap.
    expect(await hitsCounted(gw)).toBe(hitsBefore + 1);

    const doomed = await admin.mintKey(owner.accountId);
    expect((await post(gw.url, '/v1/chat/completions', doomed.raw, body)).headers.get('x-farebox-cache')).toBe('hit');
    expect((await admin.call('PATCH', `/keys/${doomed.keyId}`, { disabled: true })).status).toBe(200);
    await waitFor('the key to be refused', async () => (await post(gw.url, '/v1/chat/completions', doomed.raw, body)).status === 401, { timeoutMs: 3_000 });
  });

  it('refuses a hit the balance cannot pay (402)', async () => {
    // The hit costs the full original price; the account can pay for one answer, not two.
    const body = { model: FULL, max_tokens: 16, messages: [{ role: 'user', content: `${'many words in this prompt '.repeat(60)}` }] };
    const probe = await post(gw.url, '/v1/chat/completions', owner.raw, body, {});
    const cost = nano(probe.body.usage.cost);
    const fund = (cost * 3n) / 2n;
    const poor = await fundedKey(gw.url, `0.${fund.toString().padStart(9, '0')}`);
    const miss = await post(gw.url, '/v1/chat/completions', poor.raw, body);
    expect(miss.status).toBe(200);
    expect(miss.headers.get('x-farebox-cache')).toBe('miss');
    const hitsBefore = await hitsCounted(gw);
    const refused = await waitFor('a hit to be refused', async () => {
      const res = await post(gw.url, '/v1/chat/completions', poor.raw, body);
      return (await hitsCounted(gw)) > hitsBefore ? res : undefined;
    }, { timeoutMs: 3_000 });
    expect(refused.status).toBe(402);
    expect(refused.body.error.code).toBe('insufficient_credits');
    expect((await gw.deps.accounts.get(poor.accountId)).balance).toBe(fund - cost);
  });

  it('charges every one of many concurrent identical requests by the rule', async () => {
    const account = await fundedKey(gw.url, 2);
    const body = { model: TENTH, messages: [{ role: 'user', content: 'all at once [[local:chunks=3]]' }] };
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => (i % 2 === 0 ? post(gw.url, '/v1/chat/completions', account.raw, body) : postStream(gw.url, '/v1/chat/completions', account.raw, body))));
    const late = await Promise.all(Array.from({ length: 4 }, async () => {
      await new Promise((r) => setTimeout(r, 300));
      return post(gw.url, '/v1/chat/completions', account.raw, body);
    }));
    const all = [...answers, ...late];
    const costOf = (a: (typeof all)[number]) => nano('events' in a ? a.events.at(-1)?.data.usage.cost : a.body.usage.cost);
    const misses = all.filter((a) => a.headers.get('x-farebox-cache') === 'miss');
    expect(misses.length).toBeGreaterThanOrEqual(1);
    expect(late.every((a) => a.headers.get('x-farebox-cache') === 'hit')).toBe(true);
    const full = costOf(misses[0]!);
    let total = 0n;
    for (const a of all) {
      expect(a.status).toBe(200);
      const expected = a.headers.get('x-farebox-cache') === 'hit' ? tenth(full) : full;
      expect(costOf(a)).toBe(expected);
      const entry = await ledgerOf(gw, idOf(a));
      expect(entry.charged).toBe(expected);
      total += expected;
    }
    const account2 = await gw.deps.accounts.get(account.accountId);
    expect(account2.balance).toBe(2_000_000_000n - total);
  });
});
