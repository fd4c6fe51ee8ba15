import { answeredDocuments, recordAnswer } from './spec-recorder.js';
import { TEST_ADMIN_TOKEN } from './test-gateway.js';

/** A JSON response: status, headers and parsed body. */
export interface JsonResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

/** Calls the gateway and parses its JSON answer (tests only). */
export async function call<T = any>(
  baseUrl: string,
  method: string,
  path: string,
  options: { token?: string; body?: unknown; rawBody?: string; headers?: Record<string, string> } = {},
): Promise<JsonResponse<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  let body: string | undefined = options.rawBody;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] = 'application/json';
  } else if (body !== undefined) headers['content-type'] ??= 'application/json';
  const res = await fetch(`${baseUrl}${path}`, { method, headers, body });
  const text = await res.text();
  recordAnswer(answeredDocuments, method, new URL(`${baseUrl}${path}`).pathname, res.status, res.headers.get('content-type') ?? '', text);
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    // leave as text
  }
  return { status: res.status, headers: res.headers, body: parsed as T };
}

/** Operator shortcuts used by many tests. */
export function adminClient(baseUrl: string) {
  const admin = (method: string, path: string, body?: unknown) => call(baseUrl, method, `/v1/admin${path}`, { token: TEST_ADMIN_TOKEN, body });
  return {
    call: admin,
    async createAccount(name = 'test'): Promise<string> {
      const res = await admin('POST', '/accounts', { name });
      if (res.status !== 201) throw new Error(`create account: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body.data.account_id as string;
    },
    async topup(accountId: string, amount: number | string, reference = `ref-${Math.random()}`) {
      return admin('POST', `/accounts/${accountId}/topups`, { amount_usd: amount, reference });
    },
    async mintKey(accountId: string, body: Record<string, unknown> = {}): Promise<{ keyId: string; raw: string }> {
      const res = await admin('POST', `/accounts/${accountId}/keys`, { name: 'k', ...body });
      if (res.status !== 201) throw new Error(`mint key: ${res.status} ${JSON.stringify(res.body)}`);
      return { keyId: res.body.data.key_id as string, raw: res.body.key as string };
    },
  };
}
