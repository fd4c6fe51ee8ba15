import type { KeyDoc, KeyEventSink } from '../accounts/index.js';
import type { WebhookEmitter } from './webhook-emitter.js';

function keyData(key: KeyDoc): Record<string, unknown> {
  return { account_id: key.account_id, key_id: key._id, name: key.name, label: key.label };
}

/** `key.disabled` and `key.rotated`, emitted in the background when the key service reports them. */
export function keyEventSink(emitter: WebhookEmitter): KeyEventSink {
  return {
    disabled: (key) => emitter.fire({ accountId: key.account_id, type: 'key.disabled', data: keyData(key) }),
    rotated: (key) => emitter.fire({ accountId: key.account_id, type: 'key.rotated', data: keyData(key) }),
  };
}

/** `key.expired` for a key whose expiry has passed; once per key and expiry time. */
export function emitKeyExpired(emitter: WebhookEmitter, key: KeyDoc & { expires_at: Date }): Promise<boolean> {
  const data = { ...keyData(key), expires_at: key.expires_at.toISOString() };
  return emitter.emit({ accountId: key.account_id, type: 'key.expired', data, once: `${key._id}:${key.expires_at.toISOString()}` });
}
