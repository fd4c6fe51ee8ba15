/** What the benchmark needs in the gateway: an inference key with no limits on a funded account. */
export interface BenchAccount {
  accountId: string;
  keyId: string;
  /** Raw inference key; only ever sent to the local web process. */
  key: string;
}

/** Catalog id of the chat model mapped to the mock upstream. */
export const BENCH_CHAT_MODEL = 'bench/fast';

/** Catalog id of the embedding model mapped to the mock upstream. */
export const BENCH_EMBEDDING_MODEL = 'bench/embed';

/** The same id as `<vendor>/<model>` path segments. */
const BENCH_MODEL_PATH = '/v1/admin/models/bench/fast';

/** One call of the operator API; throws with the answer on anything but 2xx. */
export async function admin(baseUrl: string, token: string, method: string, path: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status < 200 || res.status > 299) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
  return JSON.parse(text) as Record<string, unknown>;
}

function field(value: unknown, ...path: string[]): string {
  let current: unknown = value;
  for (const name of path) current = typeof current === 'object' && current !== null ? (current as Record<string, unknown>)[name] : undefined;
  if (typeof current !== 'string') throw new Error(`admin answer has no ${path.join('.')}`);
  return current;
}

/**
 * Seeds through the operator API of the running web process, as an operator would: the
 * `bench/fast` chat model and the `bench/embed` embedding model on the `openai`-kind provider (which points at the mock), an
 * account with a large top-up, and an inference key with no limits.
 */
export async function seedBench(baseUrl: string, adminToken: string, runId: string): Promise<BenchAccount> {
  await admin(baseUrl, adminToken, 'PUT', BENCH_MODEL_PATH, {
    name: 'Bench fast upstream',
    kind: 'chat',
    provider: 'openai',
    upstream_model: 'bench-fast',
    pricing: { prompt: '0.000001', completion: '0.000002' },
    capabilities: [],
    context_length: 32_768,
  });
  await admin(baseUrl, adminToken, 'PUT', `/v1/admin/models/${BENCH_EMBEDDING_MODEL}`, {
    name: 'Bench embeddings upstream',
    kind: 'embedding',
    provider: 'openai',
    upstream_model: 'bench-embed',
    pricing: { prompt: '0.00000002' },
    capabilities: ['DIMENSIONS'],
    context_length: 8_192,
    dimensions: 1_536,
  });
  return fundedAccount(baseUrl, adminToken, `bench-${runId}`);
}

/** An account with a large top-up and an inference key with no limits, named `name`. */
export async function fundedAccount(baseUrl: string, adminToken: string, name: string): Promise<BenchAccount> {
  const account = await admin(baseUrl, adminToken, 'POST', '/v1/admin/accounts', { name });
  const accountId = field(account, 'data', 'account_id');
  await admin(baseUrl, adminToken, 'POST', `/v1/admin/accounts/${accountId}/topups`, { amount_usd: 1_000_000, reference: name });
  const minted = await admin(baseUrl, adminToken, 'POST', `/v1/admin/accounts/${accountId}/keys`, { name: 'bench', limits: {} });
  return { accountId, keyId: field(minted, 'data', 'key_id'), key: field(minted, 'key') };
}
