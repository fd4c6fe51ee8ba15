import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeAnthropic } from '../../../fixtures/upstreams/fake-anthropic.js';
import { startFakeOpenAi, type FakeUpstream } from '../../../fixtures/upstreams/fake-openai.js';
import { adminClient } from '../../../helpers/admin-client.js';
import { spawnWeb, type WebProcess } from '../../../helpers/spawn-web.js';
import { startTestGateway, testEnv, type TestGateway } from '../../../helpers/test-gateway.js';

/** A spawned web process with a funded key and a key whose account balance is zero. */
export interface FrontGateway {
  setup: TestGateway;
  web: WebProcess;
  funded: { accountId: string; raw: string };
  broke: { accountId: string; raw: string };
  /** The operator API (accounts, top-ups, keys). */
  admin: ReturnType<typeof adminClient>;
  /** The fake upstreams behind `fake/gpt` and `fake/claude` (what they received, scenarios). */
  upstreams: { openai: FakeUpstream; anthropic: FakeUpstream };
  close(): Promise<void>;
}

const OPENAI_KEY = 'sk-fronts-fake-openai-key-000000';
const ANTHROPIC_KEY = 'sk-ant-fronts-fake-key-000000';

/**
 * Starts fake OpenAI and Anthropic upstreams (catalog ids `fake/gpt`, `fake/claude`), the
 * gateway (release step + operator in process) and a real web process.
 */
export async function startFrontGateway(): Promise<FrontGateway> {
  const openaiFake: FakeUpstream = await startFakeOpenAi({ apiKey: OPENAI_KEY });
  const anthropicFake: FakeUpstream = await startFakeAnthropic({ apiKey: ANTHROPIC_KEY });
  const dir = await mkdtemp(join(tmpdir(), 'fbx-e2e-fronts-'));
  const providersFile = join(dir, 'providers.json');
  await writeFile(providersFile, JSON.stringify([
    { id: 'local', kind: 'local' },
    { id: 'fake-openai', kind: 'openai', base_url: `${openaiFake.url}/v1`, api_key_env: 'FAKE_OPENAI_KEY' },
    { id: 'fake-anthropic', kind: 'anthropic', base_url: anthropicFake.url, api_key_env: 'FAKE_ANTHROPIC_KEY' },
  ]));
  const env = testEnv({ LOG_LEVEL: 'warn', PROVIDERS_FILE: providersFile, FAKE_OPENAI_KEY: OPENAI_KEY, FAKE_ANTHROPIC_KEY: ANTHROPIC_KEY });
  const setup = await startTestGateway({ env });
  const admin = adminClient(setup.url);
  const entry = (provider: string, upstream_model: string) => ({
    name: upstream_model, kind: 'chat', provider, upstream_model,
    pricing: { prompt: '0.000001', completion: '0.000002', web_search: '0.01' }, capabilities: ['TOOLS', 'REASONING'], context_length: 100_000,
  });
  await admin.call('PUT', '/models/fake/gpt', entry('fake-openai', 'gpt-4o-mini'));
  await admin.call('PUT', '/models/fake/claude', entry('fake-anthropic', 'claude-sonnet-4-20250514'));
  const fundedId = await admin.createAccount();
  await admin.topup(fundedId, 5);
  const brokeId = await admin.createAccount();
  // A topped-up account (so not on the free tier) with one nano-USD.
  await admin.topup(brokeId, '0.000000001');
  const funded = { accountId: fundedId, raw: (await admin.mintKey(fundedId)).raw };
  const broke = { accountId: brokeId, raw: (await admin.mintKey(brokeId)).raw };
  // One request spends the lone nano (the overrun is absorbed): the balance is then zero.
  await fetch(`${setup.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${broke.raw}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'local/echo', messages: [{ role: 'user', content: 'spend it' }], max_tokens: 5 }),
  });
  const web = await spawnWeb(env);
  return {
    setup,
    web,
    funded,
    broke,
    admin,
    upstreams: { openai: openaiFake, anthropic: anthropicFake },
    async close() {
      await web.stop();
      await setup.close();
      await openaiFake.close();
      await anthropicFake.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Nano-USD of a `usage.cost` number (the API shows USD with nine decimals at most). */
export function nanoOf(usd: number): bigint {
  return BigInt(Math.round(usd * 1e9));
}

/** The ledger charge of one request, in nano-USD. */
export async function chargedFor(gateway: FrontGateway, requestId: string): Promise<bigint | undefined> {
  const entry = await gateway.setup.deps.c.ledger.findOne({ _id: requestId });
  return entry?.cost;
}
