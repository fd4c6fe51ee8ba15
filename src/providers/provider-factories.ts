import { readFile } from 'node:fs/promises';
import type { Config } from '../platform/config/index.js';
import type { KeySetAside } from './http/key-pool.js';
import { createUpstreamClient } from './http/upstream-client.js';
import { loadProviders } from './load-providers.js';
import type { ProviderAdapter, ProviderKind } from './provider.js';
import { composeProviderFactory, createProviderRegistry, type ProviderFactories, type ProviderFactory, type ProviderRegistry } from './registry.js';

/**
 * The two halves of what providers do: `chat` (Chat Completions, the Messages relay and
 * embeddings, which the web answers itself) and `jobs` (images and OCR, which workers run).
 */
export type CapabilitySet = 'chat' | 'jobs';

/** Every capability set: what the web process builds. */
export const ALL_CAPABILITY_SETS: readonly CapabilitySet[] = ['chat', 'jobs'];

/** Loads one capability set's adapter factory, importing its code only when it is asked for. */
type FactoryLoader = () => Promise<ProviderFactory>;

/**
 * The adapter factories of every provider kind, by capability set: the only place kinds meet
 * their code. Imports are lazy, so a worker that asks for `jobs` alone never loads the chat
 * adapters and their tokenizers. Every kind is listed, so a new one fails to compile here
 * until it says what it offers.
 */
export const PROVIDER_KINDS: Record<ProviderKind, Partial<Record<CapabilitySet, FactoryLoader>>> = {
  openai: { chat: async () => (await import('./openai/openai-adapter.js')).createOpenAiAdapter },
  anthropic: { chat: async () => (await import('./anthropic/anthropic-adapter.js')).createAnthropicAdapter },
  'openai-images': { jobs: async () => (await import('./openai-images/openai-images-adapter.js')).createOpenAiImagesAdapter },
  'mistral-ocr': { jobs: async () => (await import('./mistral-ocr/mistral-ocr-adapter.js')).createMistralOcrAdapter },
  local: {
    chat: async () => {
      const [{ createLocalChat }, { createLocalEmbeddings }] = await Promise.all([import('./local/local-chat.js'), import('./local/local-embeddings.js')]);
      return composeProviderFactory({ chat: () => createLocalChat(), embeddings: () => createLocalEmbeddings() });
    },
    jobs: async () => {
      const [{ createLocalImages }, { createLocalOcr }] = await Promise.all([import('./local/local-images.js'), import('./local/local-ocr.js')]);
      return composeProviderFactory({ images: () => createLocalImages(), ocr: () => createLocalOcr() });
    },
  },
};

/** One factory whose adapter carries the capabilities of all the given factories. */
function mergeFactories(parts: readonly ProviderFactory[]): ProviderFactory {
  return (config, deps) => {
    const adapter: ProviderAdapter = { id: config.id, kind: config.kind };
    return Object.assign(adapter, ...parts.map((part) => part(config, deps))) as ProviderAdapter;
  };
}

/**
 * A factory for every kind, with only `sets`' code loaded: a kind that offers none of them
 * still gets one (a bare adapter), so a providers file is valid for every process alike.
 */
export async function providerFactories(sets: readonly CapabilitySet[] = ALL_CAPABILITY_SETS): Promise<ProviderFactories> {
  const factories: ProviderFactories = {};
  for (const [kind, loaders] of Object.entries(PROVIDER_KINDS) as [ProviderKind, Partial<Record<CapabilitySet, FactoryLoader>>][]) {
    const chosen = sets.flatMap((set) => loaders[set] ?? []);
    factories[kind] = mergeFactories(await Promise.all(chosen.map((load) => load())));
  }
  return factories;
}

/**
 * Reads the providers file, resolves keys from the config's secrets and builds the registry
 * over one pooled upstream client with the configured timeouts, with the adapters of `sets`.
 */
export async function buildProviderRegistry(
  config: Pick<Config, 'providersFile' | 'secrets' | 'upstream'>,
  sets: readonly CapabilitySet[] = ALL_CAPABILITY_SETS,
  onKeySetAside?: KeySetAside,
): Promise<ProviderRegistry> {
  const loaded = loadProviders(await readFile(config.providersFile, 'utf8'), config.secrets);
  const deps = { upstream: createUpstreamClient(config.upstream), ...(onKeySetAside !== undefined ? { onKeySetAside } : {}) };
  return createProviderRegistry(loaded, await providerFactories(sets), deps);
}
