import Anthropic, { APIError } from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAKE_REDACTED, FAKE_SIGNATURE } from '../../../fixtures/upstreams/fake-anthropic.js';
import type { KeyDoc } from '../../../../src/accounts/index.js';
import { waitFor } from '../../../helpers/wait-for.js';
import { chargedFor, nanoOf, startFrontGateway, type FrontGateway } from './front-gateway.js';

/** Usage as Farebox sends it: Anthropic's type plus `cost`. */
type CostedUsage = Anthropic.Usage & { cost: number };

const UPSTREAM_MODEL = 'claude-sonnet-4-20250514';

let gw: FrontGateway;
let client: Anthropic;

beforeAll(async () => {
  gw = await startFrontGateway();
  client = new Anthropic({ apiKey: gw.funded.raw, baseURL: gw.web.url, maxRetries: 0 });
}, 180_000);
afterAll(async () => gw?.close());

/** A request using what a translation would lose: signatures, redacted thinking, cache control, server tools. */
function richRequest(user: string): Anthropic.MessageCreateParamsNonStreaming {
  // top_k is Anthropic's, though this SDK's types leave it out.
  const params: Anthropic.MessageCreateParamsNonStreaming & { top_k: number } = {
    model: 'fake/claude',
    max_tokens: 400,
    thinking: { type: 'enabled', budget_tokens: 200 },
    system: [{ type: 'text', text: 'You are terse.', cache_control: { type: 'ephemeral' } }],
    metadata: { user_id: user },
    top_k: 5,
    stop_sequences: ['END'],
    tools: [
      { name: 'get_weather', description: 'Weather by city', input_schema: { type: 'object', properties: { location: { type: 'string' } } }, cache_control: { type: 'ephemeral' } },
      { type: 'web_search_20250305', name: 'web_search', max_uses: 1 },
    ],
    tool_choice: { type: 'none' },
    messages: [
      {
        role: 'user',
        content: [
          { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'The sky is blue.' }, title: 'Sky', citations: { enabled: true } },
          { type: 'text', text: 'first question', cache_control: { type: 'ephemeral' } },
        ],
      },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'earlier thought', signature: 'sig_from_earlier_turn' },
          { type: 'redacted_thinking', data: 'opaque_earlier' },
          { type: 'text', text: 'earlier answer' },
        ],
      },
      { role: 'user', content: 'second question' },
    ],
  };
  return params;
}

/** The body the fake Anthropic upstream received for the request tagged with `user`. */
function seenUpstream(user: string): unknown {
  const seen = gw.upstreams.anthropic.requests.filter((r) => (r.body as { metadata?: { user_id?: string } }).metadata?.user_id === user);
  expect(seen).toHaveLength(1);
  return seen[0]?.body;
}

async function ledgerEntry(requestId: string) {
  for (let i = 0; i < 100; i++) {
    const entry = await gw.setup.deps.c.ledger.findOne({ _id: requestId });
    if (entry !== null) return entry;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no ledger entry for ${requestId}`);
}

/**
 * Nothing is held for the key once its requests ended. Under leased admission the web process
 * may still hold a slice of the key's budget, which it hands back after a second unused.
 */
async function holdingNothing(key: KeyDoc): Promise<void> {
  await waitFor('nothing held for the key', async () => (await gw.setup.deps.admission.liveUsage(key)).heldUsd === 0n, { timeoutMs: 5_000, intervalMs: 100 });
}

describe('POST /v1/messages on an Anthropic-kind provider is relayed without translation', () => {
  it('messages.create: the upstream sees the client body (but model), the client gets the upstream message (but model and cost)', async () => {
    const params = richRequest('relay-create');
    const beta = 'interleaved-thinking-2025-05-14';
    const { data, response } = await client.messages.create(params, { headers: { 'anthropic-beta': beta } }).withResponse();
    expect(seenUpstream('relay-create')).toEqual({ ...params, model: UPSTREAM_MODEL });
    const seen = gw.upstreams.anthropic.requests.find((r) => (r.body as { metadata?: { user_id?: string } }).metadata?.user_id === 'relay-create');
    expect(seen?.headers['anthropic-beta']).toBe(beta);
    // The gateway's own upstream key goes up, never the client's.
    expect(seen?.headers['x-api-key']).not.toBe(gw.funded.raw);
    expect(data.model).toBe('fake/claude');
    expect(data.content).toEqual([
      { type: 'thinking', thinking: 'Let me think about this.', signature: FAKE_SIGNATURE },
      { type: 'redacted_thinking', data: FAKE_REDACTED },
      { type: 'text', text: 'Hello from the fake Claude.' },
    ]);
    const usage = data.usage as CostedUsage;
    expect(usage).toMatchObject({ input_tokens: 20, cache_creation_input_tokens: 0, cache_read_input_tokens: 5, output_tokens: 9 });
    const requestId = response.headers.get('x-service-request-id') ?? '';
    const entry = await ledgerEntry(requestId);
    // 20 plain input + 5 cache reads; 9 output, the thinking part of it billed as reasoning.
    expect(entry.units).toMatchObject({ prompt: 20, input_cache_read: 5 });
    expect((entry.units?.completion ?? 0) + (entry.units?.internal_reasoning ?? 0)).toBe(9);
    expect(entry.cost).toBe(nanoOf(usage.cost));
    // $0.000001 a prompt token, $0.000002 a completion token.
    expect(entry.cost).toBe(25n * 1000n + 9n * 2000n);
  });

  it('messages.stream: signature_delta and redacted_thinking arrive unchanged; message_delta carries the ledger cost', async () => {
    const params = richRequest('relay-stream');
    const stream = client.messages.stream(params);
    const events: Anthropic.RawMessageStreamEvent[] = [];
    for await (const event of stream) events.push(event);
    const final = await stream.finalMessage();
    expect(seenUpstream('relay-stream')).toEqual({ ...params, model: UPSTREAM_MODEL, stream: true });
    const signatures = events.flatMap((e) => (e.type === 'content_block_delta' && e.delta.type === 'signature_delta' ? [e.delta.signature] : []));
    expect(signatures).toEqual([FAKE_SIGNATURE]);
    const redacted = events.flatMap((e) => (e.type === 'content_block_start' && e.content_block.type === 'redacted_thinking' ? [e.content_block] : []));
    expect(redacted).toEqual([{ type: 'redacted_thinking', data: FAKE_REDACTED }]);
    expect(events.map((e) => e.type).at(0)).toBe('message_start');
    expect(events.map((e) => e.type).slice(-2)).toEqual(['message_delta', 'message_stop']);
    expect(final.model).toBe('fake/claude');
    expect(final.content.map((b) => b.type)).toEqual(['thinking', 'redacted_thinking', 'text']);
    expect(final.content[0]).toMatchObject({ signature: FAKE_SIGNATURE });
    const delta = events.find((e) => e.type === 'message_delta');
    if (delta?.type !== 'message_delta') throw new Error('expected message_delta');
    const cost = (delta.usage as unknown as CostedUsage).cost;
    const entry = await ledgerEntry(stream.request_id ?? '');
    // 20 plain input + 5 cache reads; 9 output, the thinking part of it billed as reasoning.
    expect(entry.units).toMatchObject({ prompt: 20, input_cache_read: 5 });
    expect((entry.units?.completion ?? 0) + (entry.units?.internal_reasoning ?? 0)).toBe(9);
    expect(entry.cost).toBe(nanoOf(cost));
  });

  it('a client that leaves mid-stream is charged once, for the prompt and what was produced', async () => {
    // message_start, ping, the text block's start and its first delta; then the upstream stalls.
    gw.upstreams.anthropic.setScenario({ type: 'stall-stream', afterFrames: 4 });
    try {
      const controller = new AbortController();
      const res = await fetch(`${gw.web.url}/v1/messages`, {
        method: 'POST',
        headers: { 'x-api-key': gw.funded.raw, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'fake/claude', max_tokens: 200, stream: true, metadata: { user_id: 'relay-abort' }, messages: [{ role: 'user', content: 'leave early' }] }),
        signal: controller.signal,
      });
      expect(res.status).toBe(200);
      const requestId = res.headers.get('x-service-request-id') ?? '';
      const reader = res.body!.getReader();
      const decoder = new TextDecoder();
      let seen = '';
      while (!seen.includes('text_delta')) {
        const step = await reader.read();
        if (step.done) throw new Error(`stream ended before any text: ${seen}`);
        seen += decoder.decode(step.value);
      }
      controller.abort();
      const entry = await ledgerEntry(requestId);
      expect(entry.kind).toBe('charge');
      // The prompt as the upstream counted it at message_start; the text relayed so far, counted.
      expect(entry.units).toMatchObject({ prompt: 20, input_cache_read: 5 });
      expect(entry.units?.completion).toBeGreaterThanOrEqual(1);
      expect(entry.cost).toBe(25n * 1000n + BigInt(entry.units?.completion ?? 0) * 2000n);
      expect(await gw.setup.deps.c.ledger.countDocuments({ _id: requestId })).toBe(1);
      expect(await chargedFor(gw, requestId)).toBe(entry.cost);
    } finally {
      gw.upstreams.anthropic.setScenario({ type: 'normal' });
    }
  });

  it('under concurrency the costs clients saw on relayed requests sum to the ledger charges exactly', async () => {
    const accountId = await gw.admin.createAccount();
    await gw.admin.topup(accountId, 1);
    const an = new Anthropic({ apiKey: (await gw.admin.mintKey(accountId)).raw, baseURL: gw.web.url, maxRetries: 0 });
    const runs = Array.from({ length: 16 }, async (_, i): Promise<number> => {
      const params = { model: 'fake/claude', max_tokens: 100, messages: [{ role: 'user' as const, content: `concurrent ${i}` }] };
      if (i % 2 === 0) return ((await an.messages.create(params)).usage as CostedUsage).cost;
      // The SDK's accumulated final message keeps only Anthropic's usage fields: read the event.
      let cost = 0;
      for await (const event of an.messages.stream(params)) if (event.type === 'message_delta') cost = (event.usage as unknown as CostedUsage).cost;
      return cost;
    });
    const costs = await Promise.all(runs);
    expect(costs.every((c) => c > 0)).toBe(true);
    const charges = await gw.setup.deps.c.ledger.find({ account_id: accountId, kind: 'charge' }).toArray();
    expect(charges).toHaveLength(16);
    expect(charges.reduce((t, e) => t + e.cost, 0n)).toBe(costs.reduce((t, c) => t + nanoOf(c), 0n));
  });

  it("relays the upstream's in-stream error event unchanged and bills what was produced once", async () => {
    // message_start, ping, the text block's start and its first delta; then Anthropic's error event.
    gw.upstreams.anthropic.setScenario({ type: 'stream-error', afterFrames: 4 });
    try {
      const { data: stream, response } = await client.messages
        .create({ model: 'fake/claude', max_tokens: 100, stream: true, messages: [{ role: 'user', content: 'fail midway' }] })
        .withResponse();
      const events: Anthropic.RawMessageStreamEvent[] = [];
      const thrown = await (async () => {
        for await (const event of stream) events.push(event);
      })().then(() => undefined, (err: unknown) => err);
      expect(thrown).toBeInstanceOf(APIError);
      expect((thrown as APIError).error).toEqual({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } });
      expect(events.filter((e) => e.type === 'content_block_delta')).toHaveLength(1);
      const requestId = response.headers.get('x-service-request-id') ?? '';
      const entry = await ledgerEntry(requestId);
      expect(entry.units).toMatchObject({ prompt: 20, input_cache_read: 5 });
      expect(await gw.setup.deps.c.ledger.countDocuments({ _id: requestId })).toBe(1);
    } finally {
      gw.upstreams.anthropic.setScenario({ type: 'normal' });
    }
  });

  it('reports an upstream stream that breaks midway with an error event, and bills what was produced once', async () => {
    gw.upstreams.anthropic.setScenario({ type: 'reset', afterFrames: 4 });
    try {
      const { data: stream, response } = await client.messages
        .create({ model: 'fake/claude', max_tokens: 100, stream: true, messages: [{ role: 'user', content: 'cut midway' }] })
        .withResponse();
      const thrown = await (async () => {
        for await (const _event of stream);
      })().then(() => undefined, (err: unknown) => err);
      expect(thrown).toBeInstanceOf(APIError);
      expect((thrown as APIError).error).toMatchObject({ type: 'error', error: { type: expect.any(String), message: expect.any(String) } });
      const requestId = response.headers.get('x-service-request-id') ?? '';
      const entry = await ledgerEntry(requestId);
      expect(entry.units).toMatchObject({ prompt: 20, input_cache_read: 5 });
      expect(entry.units?.completion).toBeGreaterThanOrEqual(1);
      expect(await gw.setup.deps.c.ledger.countDocuments({ _id: requestId })).toBe(1);
    } finally {
      gw.upstreams.anthropic.setScenario({ type: 'normal' });
    }
  });

  it('answers an upstream refusal before the stream in Anthropic\'s error shape, holding nothing', async () => {
    gw.upstreams.anthropic.setScenario({ type: 'error', status: 529, body: JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }) });
    try {
      const error = await client.messages
        .create({ model: 'fake/claude', max_tokens: 100, messages: [{ role: 'user', content: 'refused' }] })
        .then(() => undefined, (err: unknown) => err);
      expect(error).toBeInstanceOf(APIError);
      expect((error as APIError).status).toBeGreaterThanOrEqual(500);
      expect((error as APIError).error).toMatchObject({ type: 'error', error: { type: expect.any(String), message: expect.any(String) } });
      const key = await gw.setup.deps.keyAuth.authenticate(gw.funded.raw);
      await holdingNothing(key);
    } finally {
      gw.upstreams.anthropic.setScenario({ type: 'normal' });
    }
  });

  it('leaves server tools out where the provider cannot run them (named in a header), refuses documents and forced server tools, holding nothing', async () => {
    const { data: answer, response } = await client.messages
      .create({ model: 'local/echo', max_tokens: 50, tools: [{ type: 'web_search_20250305', name: 'web_search' }], messages: [{ role: 'user', content: 'search' }] })
      .withResponse();
    expect(answer.content).toEqual([{ type: 'text', text: 'Echo: search' }]);
    expect(response.headers.get('x-farebox-omitted-tools')).toBe('web_search_20250305');
    const forced = await client.messages
      .create({ model: 'local/echo', max_tokens: 50, tools: [{ type: 'web_search_20250305', name: 'web_search' }], tool_choice: { type: 'tool', name: 'web_search' }, messages: [{ role: 'user', content: 'search' }] })
      .then(() => undefined, (err: unknown) => err);
    expect(forced).toBeInstanceOf(Anthropic.BadRequestError);
    expect((forced as APIError).error).toMatchObject({ type: 'error', error: { type: 'invalid_request_error', param: 'tool_choice' } });
    const document = { type: 'document' as const, source: { type: 'text' as const, media_type: 'text/plain' as const, data: 'x' } };
    const refused = await client.messages
      .create({ model: 'local/echo', max_tokens: 50, messages: [{ role: 'user', content: [{ type: 'text', text: 'read' }, document] }] })
      .then(() => undefined, (err: unknown) => err);
    expect((refused as APIError).error).toMatchObject({ error: { type: 'invalid_request_error', param: 'messages.0.content.1' } });
    const key = await gw.setup.deps.keyAuth.authenticate(gw.funded.raw);
    await holdingNothing(key);
  });
});
