import type { ProviderAdapter, ProviderConfig } from '../provider.js';
import type { ProviderDeps } from '../registry.js';
import { requireEndpoint } from '../http/require-endpoint.js';
import { createOpenAiChat } from './openai-chat.js';

/** Adapter of kind `openai`: any OpenAI-compatible chat API (OpenAI, Groq, Mistral, xAI, …). */
export function createOpenAiAdapter(config: ProviderConfig, deps: ProviderDeps): ProviderAdapter {
  const { baseUrl, apiKey } = requireEndpoint(config);
  return { id: config.id, kind: config.kind, chat: createOpenAiChat({ baseUrl, apiKey, client: deps.upstream }) };
}
