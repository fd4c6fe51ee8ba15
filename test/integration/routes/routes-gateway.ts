import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { startFakeOpenAi, type FakeUpstream } from '../../fixtures/upstreams/fake-openai.js';
import { adminClient } from '../../helpers/admin-client.js';
import { startTestGateway, testEnv, type TestGateway } from '../../helpers/test-gateway.js';
import { fundedKey, type FundedKey } from '../chat/chat-client.js';

export const KEY_A = 'sk-fake-route-a-upstream-key-0001';
export const KEY_B = 'sk-fake-route-b-upstream-key-0002';
export const KEY_C = 'sk-fake-route-c-upstream-key-0003';
/** Keys the keyed provider is given: both wrong, so both get set aside. */
export const WRONG_KEYS = { FAKE_KEYED_1: 'sk-wrong-keyed-value-one-1111', FAKE_KEYED_2: 'sk-wrong-keyed-value-two-2222' };
/** Keys of the half-keyed provider (upstream C): the first refused, the second C's own. */
export const HALF_KEYS = { FAKE_HALF_1: 'sk-wrong-half-value-one-3333', FAKE_HALF_2: KEY_C };

/** Model prices (route A) and route B's own, USD per token. */
export const PRICE_A = { prompt: '0.000001', completion: '0.000002' };
export const PRICE_B = { prompt: '0.000003', completion: '0.000004' };
/** What each fake reports: A 11/7 tokens, B 11/9 (so the answering route shows in usage). */
export const USAGE_A = { prompt: 11, completion: 7 };
export const USAGE_B = { prompt: 11, completion: 9 };

/** Cost in USD of usage at a price, as the gateway reports it (9 decimals). */
export function usd(usage: { prompt: number; completion: number }, price: { prompt: string; completion: string }): number {
  return Number((usage.prompt * Number(price.prompt) + usage.completion * Number(price.completion)).toFixed(9));
}

/** A gateway with three OpenAI-compatible fakes: A and B answer, C only takes a key neither given key is. */
export interface RoutesWorld {
  gw: TestGateway;
  a: FakeUpstream;
  b: FakeUpstream;
  c: FakeUpstream;
  key: FundedKey;
  client: OpenAI;
  dir: string;
  /** Creates a model whose routes are `providers` in order (B with its own prices). */
  model(id: string, providers: string[], extra?: Record<string, unknown>): Promise<void>;
  close(): Promise<void>;
}

/** Starts the world; `env` adds gateway settings. */
export async function startRoutesWorld(env: Record<string, string> = {}): Promise<RoutesWorld> {
  const a = await startFakeOpenAi({ apiKey: KEY_A, reply: 'Answer from A.', usage: USAGE_A });
  const b = await startFakeOpenAi({ apiKey: KEY_B, reply: 'Answer from B.', usage: USAGE_B });
  const c = await startFakeOpenAi({ apiKey: KEY_C, reply: 'Answer from C.', usage: USAGE_A });
  const dir = await mkdtemp(join(tmpdir(), 'fbx-routes-'));
  const providersFile = join(dir, 'providers.json');
  await writeFile(providersFile, JSON.stringify([
    { id: 'local', kind: 'local' },
    { id: 'prov-a', kind: 'openai', base_url: `${a.url}/v1`, api_key_env: 'FAKE_A_KEY' },
    { id: 'prov-b', kind: 'openai', base_url: `${b.url}/v1`, api_key_env: 'FAKE_B_KEY' },
    { id: 'prov-keyed', kind: 'openai', base_url: `${c.url}/v1`, api_key_env: ['FAKE_KEYED_1', 'FAKE_KEYED_2'] },
    { id: 'prov-half', kind: 'openai', base_url: `${c.url}/v1`, api_key_env: ['FAKE_HALF_1', 'FAKE_HALF_2'] },
    // Nothing listens on the discard port: every connection is refused.
    { id: 'prov-dead', kind: 'openai', base_url: 'http://127.0.0.1:9/v1', api_key_env: 'FAKE_A_KEY' },
  ]));
  const gw = await startTestGateway({
    env: testEnv({
      LOG_LEVEL: 'info', PROVIDERS_FILE: providersFile, FAKE_A_KEY: KEY_A, FAKE_B_KEY: KEY_B, ...WRONG_KEYS, ...HALF_KEYS,
      UPSTREAM_FIRST_BYTE_TIMEOUT_MS: '400', UPSTREAM_IDLE_TIMEOUT_MS: '400', ...env,
    }),
  });
  const admin = adminClient(gw.url);
  const route = (provider: string) => ({ provider, upstream_model: `${provider}-model`, ...(provider === 'prov-b' ? { pricing: PRICE_B } : {}) });
  const key = await fundedKey(gw.url, 50);
  const client = new OpenAI({ apiKey: key.raw, baseURL: `${gw.url}/v1`, maxRetries: 0 });
  return {
    gw, a, b, c, key, client, dir,
    async model(id, providers, extra = {}) {
      const body = { name: id, kind: 'chat', routes: providers.map(route), pricing: PRICE_A, context_length: 100_000, max_output_tokens: 100, ...extra };
      const res = await admin.call('PUT', `/models/${id}`, body);
      if (res.status !== 200) throw new Error(`PUT model ${res.status} ${JSON.stringify(res.body)}`);
    },
    async close() {
      await gw.close();
      await Promise.all([a.close(), b.close(), c.close()]);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** The stored record of a request, once written. */
export async function recordOf(world: RoutesWorld, requestId: string): Promise<Record<string, any>> {
  await world.gw.deps.requests.drain();
  const res = await adminClient(world.gw.url).call('GET', `/requests/${requestId}`);
  if (res.status !== 200) throw new Error(`record ${requestId}: ${res.status}`);
  return res.body.data as Record<string, any>;
}

/** Attempts of a record reduced to provider, outcome, cause, status and the key's variable. */
export function keyedAttemptsOf(record: Record<string, any>): Array<[string, string, string | null, number | null, string | undefined]> {
  return (record.attempts as Array<Record<string, any>>).map((a) => [a.provider, a.outcome, a.cause, a.status, a.key_env]);
}

/** Attempts of a record reduced to what tests compare: provider, outcome, cause, status. */
export function attemptsOf(record: Record<string, any>): Array<[string, string, string | null, number | null]> {
  return (record.attempts as Array<Record<string, any>>).map((a) => [a.provider, a.outcome, a.cause, a.status]);
}
