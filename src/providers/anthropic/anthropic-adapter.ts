import type { ProviderAdapter, ProviderConfig } from '../provider.js';
import type { ProviderDeps } from '../registry.js';
import { requireEndpoint } from '../http/require-endpoint.js';
import { createAnthropicChat } from './anthropic-chat.js';

/** Adapter of kind `anthropic`: the Messages API. */
export function createAnthropicAdapter(config: ProviderConfig, deps: ProviderDeps): ProviderAdapter {
  const { baseUrl, apiKey } = requireEndpoint(config);
  return { id: config.id, kind: config.kind, chat: createAnthropicChat({ baseUrl, apiKey, client: deps.upstream }) };
}
