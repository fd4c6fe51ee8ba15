import { readFile } from 'node:fs/promises';
import type { Config } from '../src/config/config.js';
import { createUpstreamClient } from '../src/providers/http/upstream-client.js';
import { loadProviders } from '../src/providers/load-providers.js';
import { createLocalImages } from '../src/providers/local/local-images.js';
import { createLocalOcr } from '../src/providers/local/local-ocr.js';
import { createMistralOcrAdapter } from '../src/providers/mistral-ocr/mistral-ocr-adapter.js';
import { createOpenAiImagesAdapter } from '../src/providers/openai-images/openai-images-adapter.js';
import { composeProviderFactory, createProviderRegistry, type ProviderFactories, type ProviderRegistry } from '../src/providers/registry.js';

/**
 * The adapter factories a worker needs: the kinds that generate images or read documents.
 * Chat-only kinds are left out, so a worker never loads the chat adapters and their
 * tokenizers (the web's registry, `PROVIDER_FACTORIES`, has every kind); their providers are
 * simply disabled here, as no job names them.
 */
export const WORKER_FACTORIES: ProviderFactories = {
  'openai-images': createOpenAiImagesAdapter,
  'mistral-ocr': createMistralOcrAdapter,
  local: composeProviderFactory({ images: () => createLocalImages(), ocr: () => createLocalOcr() }),
};

/** The worker's provider registry, read from the same providers file and secrets as the web's. */
export async function buildWorkerProviders(config: Pick<Config, 'providersFile' | 'secrets' | 'upstream'>): Promise<ProviderRegistry> {
  const loaded = loadProviders(await readFile(config.providersFile, 'utf8'), config.secrets);
  return createProviderRegistry(loaded, WORKER_FACTORIES, { upstream: createUpstreamClient(config.upstream) });
}
