import { readFile } from 'node:fs/promises';
import type { Config } from '../src/config/config.js';
import { createUpstreamClient } from '../src/providers/http/upstream-client.js';
import { loadProviders } from '../src/providers/load-providers.js';
import { createLocalImages } from '../src/providers/local/local-images.js';
import { createLocalOcr } from '../src/providers/local/local-ocr.js';
import { createMistralOcrAdapter } from '../src/providers/mistral-ocr/mistral-ocr-adapter.js';
import { createOpenAiImagesAdapter } from '../src/providers/openai-images/openai-images-adapter.js';
import type { ProviderKind } from '../src/providers/provider.js';
import { composeProviderFactory, createProviderRegistry, type ProviderFactory, type ProviderRegistry } from '../src/providers/registry.js';

/** An adapter with no capability: chat-only kinds, which no job names. */
const chatOnly = composeProviderFactory({});

/**
 * The adapter factories a worker needs: the image and OCR capabilities of every kind, and
 * nothing for chat, so a worker never loads the chat adapters and their tokenizers (the web's
 * registry, `PROVIDER_FACTORIES`, has everything). Every kind is listed, so a new one fails
 * to compile here until it says what workers run of it.
 */
export const WORKER_FACTORIES: Record<ProviderKind, ProviderFactory> = {
  openai: chatOnly,
  anthropic: chatOnly,
  'openai-images': createOpenAiImagesAdapter,
  'mistral-ocr': createMistralOcrAdapter,
  local: composeProviderFactory({ images: () => createLocalImages(), ocr: () => createLocalOcr() }),
};

/** The worker's provider registry, read from the same providers file and secrets as the web's. */
export async function buildWorkerProviders(config: Pick<Config, 'providersFile' | 'secrets' | 'upstream'>): Promise<ProviderRegistry> {
  const loaded = loadProviders(await readFile(config.providersFile, 'utf8'), config.secrets);
  return createProviderRegistry(loaded, WORKER_FACTORIES, { upstream: createUpstreamClient(config.upstream) });
}
