import { createHash, timingSafeEqual } from 'node:crypto';
import { GatewayError } from '../platform/errors/index.js';
import { isWellFormedKey, type KeyAuthenticator } from '../accounts/index.js';
import { operatorTokenHash, type SessionRecord } from './session-store.js';

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

const INVALID = 'Invalid operator token or management key.';

/**
 * Checks what a console sign-in offers: the operator token (compared in constant time over
 * hashes) or an active management key. Returns the record to store, never the secret itself.
 */
export async function signInRecord(token: string, adminToken: string | undefined, keyAuth: KeyAuthenticator): Promise<SessionRecord> {
  const created_at = new Date().toISOString();
  if (adminToken !== undefined && timingSafeEqual(digest(token), digest(adminToken))) {
    return { mode: 'operator', token_hash: operatorTokenHash(adminToken), created_at };
  }
  if (!isWellFormedKey(token)) throw new GatewayError('invalid_api_key', INVALID);
  const key = await keyAuth.authenticate(token);
  if (key.role !== 'management') {
    throw new GatewayError('permission_denied', 'The console takes a management key; inference keys cannot sign in.');
  }
  return { mode: 'account', account_id: key.account_id, key_id: key._id, key_hash: key.hash, created_at };
}
