import { providerClient } from '../http/provider-client.js';
import type { ProviderAdapter, ProviderConfig } from '../provider.js';
import type { ProviderDeps } from '../registry.js';
import { requireEndpoint } from '../http/require-endpoint.js';
import { createAnthropicChat } from './anthropic-chat.js';
import { createAnthropicInputTokens, createAnthropicRelay } from './anthropic-relay.js';

/** Adapter of kind `anthropic`: chat through the Messages API, and the Messages API relayed as is. */
export function createAnthropicAdapter(config: ProviderConfig, deps: ProviderDeps): ProviderAdapter {
  const { baseUrl, apiKey } = requireEndpoint(config);
  const options = { baseUrl, apiKey, client: providerClient({ config, ...deps }, (key) => ({ 'x-api-key': key })) };
  return { id: config.id, kind: config.kind, chat: createAnthropicChat(options), messages: createAnthropicRelay(options), inputTokens: { messages: createAnthropicInputTokens(options) } };
}
