import { createHash } from 'node:crypto';
import { canonicalJson } from '../platform/util/index.js';

/** The doors whose answers may be cached: the three chat doors and embeddings. */
export type CacheDoor = 'chat/completions' | 'responses' | 'messages' | 'embeddings';

/**
 * Body fields that never change the answer: how it is delivered (`stream`, `stream_options`),
 * who it is for (`user`, `metadata`), and `model`, which the key names by its catalog id so
 * an alias and the id it resolves to share entries. Request controls that change nothing the
 * upstream sees (`max_cost`) are left out too.
 */
export const UNKEYED_FIELDS: ReadonlySet<string> = new Set(['stream', 'stream_options', 'user', 'metadata', 'model', 'max_cost']);

/** What makes two requests the same request. */
export interface CacheKeyParts {
  readonly accountId: string;
  readonly door: CacheDoor;
  /** The catalog id the request's `model` resolved to. */
  readonly modelId: string;
  readonly body: unknown;
}

/**
 * The body as it is keyed: top-level fields that change the answer, in canonical form (object
 * keys sorted at every depth), so field order never splits entries. Nested fields are all kept:
 * only the top level names delivery and end-user fields.
 */
export function keyedBody(body: unknown): string {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return canonicalJson(body);
  const kept: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(body)) if (!UNKEYED_FIELDS.has(field)) kept[field] = value;
  return canonicalJson(kept);
}

/**
 * The entry's key: SHA-256 over the account, the door, the catalog id and the keyed body, each
 * part length-prefixed so no two different requests can run together into the same bytes.
 * The account is part of the hash, so an answer is never found from another account.
 */
export function cacheKey(parts: CacheKeyParts): string {
  const hash = createHash('sha256');
  for (const part of [parts.accountId, parts.door, parts.modelId, keyedBody(parts.body)]) {
    hash.update(`${Buffer.byteLength(part, 'utf8')}:`);
    hash.update(part, 'utf8');
  }
  return hash.digest('hex');
}
