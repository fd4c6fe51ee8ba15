import { bearer, providerClient } from '../http/provider-client.js';
import type { ProviderAdapter, ProviderConfig } from '../provider.js';
import type { ProviderDeps } from '../registry.js';
import { requireEndpoint } from '../http/require-endpoint.js';
import { createOpenAiChat } from './openai-chat.js';
import { createOpenAiEmbeddings } from './openai-embeddings.js';
import { createOpenAiInputTokens, createOpenAiResponsesRelay } from './openai-responses-relay.js';

/**
 * Adapter of kind `openai`: any OpenAI-compatible chat and embeddings API (OpenAI, Groq, Mistral,
 * xAI, …), and the Responses API relayed as is where the providers file says the upstream has it.
 */
export function createOpenAiAdapter(config: ProviderConfig, deps: ProviderDeps): ProviderAdapter {
  const { baseUrl, apiKey } = requireEndpoint(config);
  const endpoint = { baseUrl, apiKey, client: providerClient({ config, ...deps }, bearer) };
  const chat = createOpenAiChat(endpoint);
  const adapter: ProviderAdapter = { id: config.id, kind: config.kind, chat: { ...chat, outputLimitField: config.outputLimitField ?? 'max_tokens' }, embeddings: createOpenAiEmbeddings(endpoint) };
  if (config.responsesApi !== true) return adapter;
  return { ...adapter, responses: createOpenAiResponsesRelay(endpoint), inputTokens: { responses: createOpenAiInputTokens(endpoint) } };
}
