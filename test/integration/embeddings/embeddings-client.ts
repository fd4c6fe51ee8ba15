import { call, type JsonResponse } from '../../helpers/admin-client.js';

/** `POST /v1/embeddings` with a key. */
export function embed(url: string, raw: string, body: Record<string, unknown>): Promise<JsonResponse> {
  return call(url, 'POST', '/v1/embeddings', { token: raw, body });
}

/** Cosine similarity of two vectors. */
export function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] ?? 0;
    const y = b[i] ?? 0;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

/** USD as the JSON number clients see → nano-USD (exact: at most 9 decimals). */
export const nano = (usd: number): bigint => BigInt(Math.round(usd * 1e9));
