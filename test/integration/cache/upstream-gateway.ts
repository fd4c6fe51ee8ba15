import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FakeUpstream } from '../../fixtures/chat/fake-http-server.js';
import { startFakeAnthropic } from '../../fixtures/upstreams/fake-anthropic.js';
import { startFakeOpenAi } from '../../fixtures/upstreams/fake-openai.js';
import { startFakeOpenAiResponses } from '../../fixtures/upstreams/fake-openai-responses.js';
import { adminClient } from '../../helpers/admin-client.js';
import { startTestGateway, testEnv, type TestGateway } from '../../helpers/test-gateway.js';
import { fundedKey, type FundedKey } from '../chat/chat-client.js';

/** Served by a fake Anthropic Messages API (relayed as is by the Messages door). */
export const CLAUDE = 'cache/claude';
/** Served by a fake OpenAI Responses API (relayed as is by the Responses door). */
export const GPT_RESPONSES = 'cache/gpt-responses';
/** Served by a fake OpenAI Chat Completions API that sends token log probabilities. */
export const GPT_LOGPROBS = 'cache/gpt-logprobs';

/** A gateway in process in front of fake vendor upstreams, with a funded key; hits cost a tenth. */
export interface UpstreamGateway {
  gw: TestGateway;
  owner: FundedKey;
  fakes: { anthropic: FakeUpstream; responses: FakeUpstream; openai: FakeUpstream };
  close(): Promise<void>;
}

/** Starts the fakes, the gateway and its catalog entries (each priced with `cache_hit: 0.1`). */
export async function startUpstreamGateway(): Promise<UpstreamGateway> {
  const fakes = { anthropic: await startFakeAnthropic(), responses: await startFakeOpenAiResponses(), openai: await startFakeOpenAi({ logprobs: true }) };
  const dir = await mkdtemp(join(tmpdir(), 'fbx-cache-'));
  const providersFile = join(dir, 'providers.json');
  await writeFile(providersFile, JSON.stringify([
    { id: 'local', kind: 'local' },
    { id: 'fake-anthropic', kind: 'anthropic', base_url: fakes.anthropic.url, api_key_env: 'CACHE_FAKE_KEY' },
    { id: 'fake-responses', kind: 'openai', base_url: `${fakes.responses.url}/v1`, api_key_env: 'CACHE_FAKE_KEY', responses_api: true },
    { id: 'fake-openai', kind: 'openai', base_url: `${fakes.openai.url}/v1`, api_key_env: 'CACHE_FAKE_KEY' },
  ]));
  const gw = await startTestGateway({ env: testEnv({ LOG_LEVEL: 'warn', PROVIDERS_FILE: providersFile, CACHE_FAKE_KEY: 'sk-cache-fake-key-0000000000', ROUTE_RETRY_BUDGET_MS: '0' }) });
  const admin = adminClient(gw.url);
  const entry = (provider: string, upstream_model: string) => ({
    name: upstream_model, kind: 'chat', provider, upstream_model, context_length: 100_000, max_output_tokens: 4096,
    pricing: { prompt: '0.000001', completion: '0.000002', cache_hit: '0.1' }, capabilities: ['TOOLS', 'REASONING'],
  });
  for (const [id, provider, upstream] of [[CLAUDE, 'fake-anthropic', 'claude-sonnet-4-5'], [GPT_RESPONSES, 'fake-responses', 'gpt-5'], [GPT_LOGPROBS, 'fake-openai', 'gpt-4o-mini']] as const) {
    const res = await admin.call('PUT', `/models/${id}`, entry(provider, upstream));
    if (res.status !== 200) throw new Error(`PUT /models/${id}: ${res.status}`);
  }
  await gw.deps.catalog.reload();
  const owner = await fundedKey(gw.url, 5);
  return {
    gw,
    owner,
    fakes,
    async close() {
      await gw.close();
      await Promise.all(Object.values(fakes).map((fake) => fake.close()));
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** A tenth of `cost`, rounded half up to the nano-USD (the price of a hit here). */
export function tenth(cost: bigint): bigint {
  return (cost + 5n) / 10n;
}
