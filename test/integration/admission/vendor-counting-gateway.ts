import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeAnthropic } from '../../fixtures/upstreams/fake-anthropic.js';
import { startFakeOpenAi, type FakeUpstream } from '../../fixtures/upstreams/fake-openai.js';
import { adminClient, call, type JsonResponse } from '../../helpers/admin-client.js';
import { startTestGateway, testEnv, type TestGateway } from '../../helpers/test-gateway.js';

/** A gateway in front of fakes that bill like OpenAI (`fake/gpt-4o`) and Anthropic (`fake/claude`). */
export interface CountingGateway {
  gw: TestGateway;
  openai: FakeUpstream;
  anthropic: FakeUpstream;
  close(): Promise<void>;
}

/** Real vendors' list prices: gpt-4o and Claude Sonnet. */
const MODELS = {
  'fake/gpt-4o': { provider: 'fake-openai', upstream_model: 'gpt-4o', pricing: { prompt: '0.0000025', completion: '0.00001' }, context_length: 128_000, max_output_tokens: 16_384, tokenizer: 'o200k' },
  'fake/claude': { provider: 'fake-anthropic', upstream_model: 'claude-sonnet-4-20250514', pricing: { prompt: '0.000003', completion: '0.000015' }, context_length: 200_000, max_output_tokens: 64_000 },
};

/** Starts the vendor-counting fakes, the gateway in process, and the two catalog entries. */
export async function startCountingGateway(env: Record<string, string> = {}): Promise<CountingGateway> {
  const openai = await startFakeOpenAi({ vendorCounting: true });
  const anthropic = await startFakeAnthropic({ vendorCounting: true });
  const dir = await mkdtemp(join(tmpdir(), 'fbx-counting-'));
  const providersFile = join(dir, 'providers.json');
  await writeFile(providersFile, JSON.stringify([
    { id: 'local', kind: 'local' },
    { id: 'fake-openai', kind: 'openai', base_url: `${openai.url}/v1`, api_key_env: 'FAKE_OPENAI_KEY' },
    { id: 'fake-anthropic', kind: 'anthropic', base_url: anthropic.url, api_key_env: 'FAKE_ANTHROPIC_KEY' },
  ]));
  const gw = await startTestGateway({ env: testEnv({ LOG_LEVEL: 'error', PROVIDERS_FILE: providersFile, FAKE_OPENAI_KEY: 'sk-fake', FAKE_ANTHROPIC_KEY: 'sk-ant-fake', ...env }) });
  const admin = adminClient(gw.url);
  for (const [id, entry] of Object.entries(MODELS)) {
    const res = await admin.call('PUT', `/models/${id}`, { name: id, kind: 'chat', capabilities: ['TOOLS', 'VISION'], ...entry });
    if (res.status >= 300) throw new Error(`PUT /models/${id}: ${res.status} ${JSON.stringify(res.body)}`);
  }
  return {
    gw,
    openai,
    anthropic,
    async close() {
      await gw.close();
      await openai.close();
      await anthropic.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** A hold as a refusal states it: its cost and its input-token bound. */
export interface StatedHold {
  nano: bigint;
  inputTokens: number;
}

/** nano-USD as the decimal USD text the operator API takes. */
export const usdText = (nano: bigint): string => (Number(nano) / 1e9).toFixed(9);

/** Parses "This request can cost up to $X (N input tokens at most …)" from a 402. */
export function statedHold(res: JsonResponse): StatedHold {
  const message = String(res.body?.error?.message ?? '');
  const m = /cost up to \$([\d.]+) \((\d+) input tokens at most/.exec(message);
  if (res.status !== 402 || m === null) throw new Error(`expected a 402 stating the hold, got ${res.status}: ${JSON.stringify(res.body)}`);
  const [whole, fraction = ''] = m[1]!.split('.');
  return { nano: BigInt(whole!) * 10n ** 9n + BigInt(fraction.padEnd(9, '0').slice(0, 9)), inputTokens: Number(m[2]) };
}

/** Sends a request on a key of an account holding one nano-USD: the 402 states the request's hold. */
export async function probeHold(url: string, path: string, body: unknown): Promise<StatedHold> {
  const admin = adminClient(url);
  const accountId = await admin.createAccount();
  await admin.topup(accountId, '0.000000001');
  const { raw } = await admin.mintKey(accountId);
  return statedHold(await call(url, 'POST', path, { token: raw, body }));
}
