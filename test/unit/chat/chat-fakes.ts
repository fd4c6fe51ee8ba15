import pino from 'pino';
import { parsePrice } from '../../../src/billing/money.js';
import type { CatalogModel, ModelDoc } from '../../../src/catalog/model-types.js';
import type { AdmittedChat } from '../../../src/chat/admit/chat-admit.js';
import type { ChatServiceDeps } from '../../../src/chat/chat-service-deps.js';
import type { ChunkSink } from '../../../src/chat/wire/chunk-sink.js';
import type { BilledUnits } from '../../../src/billing/pricing.js';
import type { AdmissionTicket } from '../../../src/admission/admission-types.js';
import type { ChatCapability, ChatRequestBody } from '../../../src/providers/chat/chat-types.js';

/** A priced chat model: $1 per million prompt tokens, $2 per million completion tokens. */
export function testModel(overrides: Partial<ModelDoc> = {}): CatalogModel {
  const doc: ModelDoc = {
    _id: 'test/chat', name: 'Test', kind: 'chat', provider: 'fake', upstream_model: 'up-model',
    pricing: { prompt: '0.000001', completion: '0.000002' }, capabilities: [], context_length: 1000, max_output_tokens: null,
    free_tier: false, created: 0, owned_by: 'test', retired: false, updated_at: new Date(0), ...overrides,
  };
  return { id: doc._id, doc, prices: { prompt: parsePrice('0.000001'), completion: parsePrice('0.000002') }, isFree: false, priceVersion: 'test' };
}

/** Records every step so tests can check order (charge durable before usage is sent). */
export type Journal = string[];

/** A ticket that records settle/release calls. */
export function recordingTicket(journal: Journal, options: { failSettle?: boolean } = {}) {
  const settles: Array<{ cost: bigint; units: BilledUnits }> = [];
  let releases = 0;
  const ticket: AdmissionTicket = {
    requestId: 'req_test',
    held: 0n,
    async settle(cost, units) {
      settles.push({ cost, units });
      await new Promise((r) => setTimeout(r, 5));
      if (options.failSettle) throw new Error('mongo down');
      journal.push(`settled:${cost}`);
      return { cost, charged: cost, absorbed: 0n, duplicate: false };
    },
    async release() {
      releases += 1;
      journal.push('released');
    },
  };
  return { ticket, settles, releases: () => releases };
}

/** A sink that keeps chunks in memory and can play a client that leaves. */
export function memorySink(journal: Journal, leaveAfter = Infinity) {
  const chunks: Array<Record<string, unknown>> = [];
  let closed = false;
  let opened = false;
  let finished = false;
  const sink: ChunkSink = {
    get closed() {
      return closed;
    },
    open() {
      opened = true;
      journal.push('open');
    },
    async send(chunk) {
      if (closed) return;
      chunks.push(chunk as Record<string, unknown>);
      journal.push(Array.isArray((chunk as { choices?: unknown[] }).choices) && (chunk as { usage?: unknown }).usage ? 'usage-chunk' : 'chunk');
      if (chunks.length >= leaveAfter) closed = true;
    },
    async finish() {
      if (closed) return;
      finished = true;
      journal.push('done');
    },
  };
  return { sink, chunks, state: () => ({ opened, finished, closed }) };
}

/** Service deps without stores. */
export function serviceDeps(): ChatServiceDeps {
  return {
    catalog: undefined as never,
    providers: { get: () => { throw new Error('unused'); } },
    admission: undefined as never,
    log: pino({ level: 'silent' }),
    clock: () => new Date(1_700_000_000_000),
    requestTiming: { maxRequestMs: 3_600_000, usageGraceMs: 5_000 },
  };
}

/** An admitted request over the given capability. */
export function admitted(chat: ChatCapability, ticket: AdmissionTicket, body: Partial<ChatRequestBody> = {}): AdmittedChat {
  const model = testModel();
  const key = 'test/chat@fake/up-model';
  return {
    requestId: 'req_test',
    meta: { id: 'chatcmpl-test', created: 1_700_000_000, model: 'test/chat' },
    entryId: 'test/chat',
    key,
    upstreamModel: 'up-model',
    route: { key, provider: 'fake', upstreamModel: 'up-model', model },
    body: { model: 'test/chat', messages: [{ role: 'user', content: 'hello' }], ...body },
    model,
    providerId: 'fake',
    chat,
    ticket,
    hold: { promptTokens: 100, completionTokens: 1000, webSearches: 0, perChoice: 1000, estimate: 10n ** 9n, fit: () => '' },
    promptTokens: async () => 10,
  };
}
