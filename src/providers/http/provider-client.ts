import { KeyPool, keyedClient, type KeySetAside, type PoolKey } from './key-pool.js';
import type { UpstreamClient } from './upstream-client.js';

/** What a provider's client is built from: its id, keys, and the shared pooled client. */
export interface ProviderClientInputs {
  readonly config: { readonly id: string; readonly apiKeys?: readonly PoolKey[] };
  readonly upstream: UpstreamClient;
  readonly onKeySetAside?: KeySetAside;
}

/**
 * The client one provider's adapter calls with: over several keys, each request takes the
 * next usable key (see KeyPool); with one key or none, the shared client as is.
 */
export function providerClient(inputs: ProviderClientInputs, auth: (key: string) => Record<string, string>): UpstreamClient {
  const keys = inputs.config.apiKeys ?? [];
  if (keys.length === 0) return inputs.upstream;
  return keyedClient(inputs.upstream, new KeyPool(inputs.config.id, keys, inputs.onKeySetAside), auth);
}

/** `Authorization: Bearer <key>`, as OpenAI-compatible vendors and Mistral take it. */
export function bearer(key: string): Record<string, string> {
  return { authorization: `Bearer ${key}` };
}
