import { call, type JsonResponse } from '../../../helpers/admin-client.js';
import { TEST_ADMIN_TOKEN } from '../../../helpers/test-gateway.js';
import { waitFor } from '../../../helpers/wait-for.js';

/** GET with the operator token. */
export function adminGet(url: string, path: string): Promise<JsonResponse> {
  return call(url, 'GET', `/v1/admin${path}`, { token: TEST_ADMIN_TOKEN });
}

/** GET with a key. */
export function keyGet(url: string, raw: string, path: string): Promise<JsonResponse> {
  return call(url, 'GET', path, { token: raw });
}

/** Raw text of a GET (CSV, metrics) with the operator token. */
export async function adminText(url: string, path: string): Promise<{ status: number; headers: Headers; text: string }> {
  const res = await fetch(`${url}${path}`, { headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

/** Waits until the operator finds a record (the writer flushes in batches every few ms). */
export async function waitRecord(url: string, id: string): Promise<Record<string, any>> {
  return waitFor(`the record of ${id}`, async () => {
    const res = await adminGet(url, `/requests/${id}`);
    return res.status === 200 ? (res.body.data as Record<string, any>) : undefined;
  }, { timeoutMs: 2_000, intervalMs: 20 });
}
