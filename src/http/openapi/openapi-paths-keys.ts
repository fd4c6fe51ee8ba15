import { createKeySchema, patchKeySchema } from '../../accounts/index.js';
import { add, envelope, fromZod, ref, type Paths } from './openapi-builders.js';

/** Who may call a family of routes, and under which tag it is listed. */
export interface Audience {
  readonly tags: string[];
  readonly auth: readonly string[];
}

const keyWithSecret = envelope(ref('Key'), { key: { type: 'string', description: 'The secret, shown this once' } });

/** Listing and minting keys at `path` (an account's keys). */
export function keyListPaths(paths: Paths, path: string, who: Audience): void {
  add(paths, 'get', path, { ...who, summary: 'List the account\'s keys', response: envelope({ type: 'array', items: ref('Key') }) });
  add(paths, 'post', path, { ...who, summary: 'Create a key (its secret is returned once)', status: 201, body: fromZod(createKeySchema), response: keyWithSecret });
}

/** One key's routes under `prefix` (`/v1` for management keys, `/v1/admin` for the operator). */
export function keyItemPaths(paths: Paths, prefix: string, who: Audience): void {
  const item = `${prefix}/keys/{key_id}`;
  add(paths, 'get', item, { ...who, summary: 'Read a key', response: envelope(ref('Key')) });
  add(paths, 'patch', item, { ...who, summary: 'Update a key (name, disabled, limits, expiry)', body: fromZod(patchKeySchema), response: envelope(ref('Key')) });
  add(paths, 'delete', item, { ...who, summary: 'Delete a key', response: envelope(ref('Deleted')) });
  add(paths, 'post', `${item}/rotate`, {
    ...who,
    summary: 'Rotate a key\'s secret',
    description: 'Replaces only the secret: id, spend, limits and history stay. The old secret stops working at once.',
    response: keyWithSecret,
  });
}
