import { readFile } from 'node:fs/promises';
import type { Config } from '../config/config.js';
import { createAnthropicAdapter } from './anthropic/anthropic-adapter.js';
import { createUpstreamClient } from './http/upstream-client.js';
import { loadProviders } from './load-providers.js';
import { createLocalChat } from './local/local-chat.js';
import { createLocalImages } from './local/local-images.js';
import { createLocalOcr } from './local/local-ocr.js';
import { createMistralOcrAdapter } from './mistral-ocr/mistral-ocr-adapter.js';
import { createOpenAiImagesAdapter } from './openai-images/openai-images-adapter.js';
import { createOpenAiAdapter } from './openai/openai-adapter.js';
import { composeProviderFactory, createProviderRegistry, type ProviderFactories, type ProviderRegistry } from './registry.js';

/** The adapter factory of every provider kind (the only place kinds meet their code). */
export const PROVIDER_FACTORIES: ProviderFactories = {
  openai: createOpenAiAdapter,
  anthropic: createAnthropicAdapter,
  'openai-images': createOpenAiImagesAdapter,
  'mistral-ocr': createMistralOcrAdapter,
  local: composeProviderFactory({ chat: () => createLocalChat(), images: () => createLocalImages(), ocr: () => createLocalOcr() }),
};

/**
 * Reads the providers file, resolves keys from the config's secrets and builds the registry
 * over one pooled upstream client with the configured timeouts.
 */
export async function buildProviderRegistry(
  config: Pick<Config, 'providersFile' | 'secrets' | 'upstream'>,
  factories: ProviderFactories = PROVIDER_FACTORIES,
): Promise<ProviderRegistry> {
  const loaded = loadProviders(await readFile(config.providersFile, 'utf8'), config.secrets);
  return createProviderRegistry(loaded, factories, { upstream: createUpstreamClient(config.upstream) });
}
