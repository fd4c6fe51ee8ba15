import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeMistralOcr, type FakeMistralOcr } from '../../fixtures/upstreams/fake-mistral-ocr.js';
import { startFakeOpenAi, type FakeUpstream } from '../../fixtures/upstreams/fake-openai.js';
import { adminClient } from '../../helpers/admin-client.js';
import { spawnWeb, type WebProcess } from '../../helpers/spawn-web.js';
import { startTestGateway, testEnv, type TestGateway } from '../../helpers/test-gateway.js';
import { spawnWorker, type WorkerProcess } from '../images/spawn-worker.js';

/** The reasoning the DeepSeek-style fake upstream sends as `reasoning_content`. */
export const UPSTREAM_REASONING = 'Thinking it over before answering.';

/** Prices of the chat models registered here, USD per token. */
export const CHAT_PRICES = { prompt: 0.000001, completion: 0.000002 };

/** A Farebox started for client tests: real web (and worker) processes over fresh stores. */
export interface ClientFarebox {
  /** e.g. `http://127.0.0.1:1234/v1`, what clients take as their base URL. */
  baseURL: string;
  /** A funded inference key. */
  apiKey: string;
  /** The DeepSeek-style upstream (reasoning_content, logprobs) behind `fake/deepseek`. */
  deepseek: FakeUpstream;
  /** Mistral's OCR API behind `mistral/mistral-ocr`. */
  mistralOcr: FakeMistralOcr;
  /** Balance of the key's account, USD. */
  balance(): Promise<number>;
  close(): Promise<void>;
}

/**
 * Starts fake vendors, prepares a database (seed catalog plus `fake/deepseek`), funds a key and
 * spawns the web process (and, with `worker`, the worker process for images and OCR).
 */
export async function startClientFarebox(options: { worker: boolean }): Promise<ClientFarebox> {
  const deepseek = await startFakeOpenAi({ apiKey: 'sk-fake-deepseek', reasoningContent: UPSTREAM_REASONING, logprobs: true });
  const mistralOcr = await startFakeMistralOcr();
  const dir = await mkdtemp(join(tmpdir(), 'fbx-clients-'));
  const providersFile = join(dir, 'providers.json');
  await writeFile(providersFile, JSON.stringify([
    { id: 'local', kind: 'local' },
    { id: 'fake-deepseek', kind: 'openai', base_url: `${deepseek.url}/v1`, api_key_env: 'FAKE_DEEPSEEK_KEY' },
    { id: 'mistral-ocr', kind: 'mistral-ocr', base_url: mistralOcr.baseUrl, api_key_env: 'FAKE_MISTRAL_KEY' },
  ]));
  const env = testEnv({ LOG_LEVEL: 'warn', JOB_TIMEOUT_MS: '60000', PROVIDERS_FILE: providersFile, FAKE_DEEPSEEK_KEY: 'sk-fake-deepseek', FAKE_MISTRAL_KEY: 'sk-fake-mistral' });
  let setup: TestGateway | undefined;
  let web: WebProcess | undefined;
  let worker: WorkerProcess | undefined;
  const close = async () => {
    await Promise.all([web?.stop(), worker?.stop()]);
    await setup?.close();
    await Promise.all([deepseek.close(), mistralOcr.close()]);
    await rm(dir, { recursive: true, force: true });
  };
  try {
    // The in-process gateway plays the release step (indexes, catalog) and the operator.
    setup = await startTestGateway({ env });
    const admin = adminClient(setup.url);
    await admin.call('PUT', '/models/fake/deepseek', {
      name: 'DeepSeek-style reasoner', kind: 'chat', provider: 'fake-deepseek', upstream_model: 'deepseek-reasoner',
      pricing: { prompt: String(CHAT_PRICES.prompt), completion: String(CHAT_PRICES.completion) }, capabilities: ['REASONING'],
    });
    const accountId = await admin.createAccount('clients');
    await admin.topup(accountId, 5);
    const apiKey = (await admin.mintKey(accountId)).raw;
    [web, worker] = await Promise.all([spawnWeb(env), options.worker ? spawnWorker(env) : Promise.resolve(undefined)]);
    const balance = async () => Number((await admin.call('GET', `/accounts/${accountId}`)).body.data.balance_usd);
    return { baseURL: `${web.url}/v1`, apiKey, deepseek, mistralOcr, balance, close };
  } catch (err) {
    await close();
    throw err;
  }
}
