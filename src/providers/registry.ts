import { GatewayError } from '../platform/errors/index.js';
import type { KeySetAside } from './http/key-pool.js';
import type { UpstreamClient } from './http/upstream-client.js';
import type { ChatCapability } from './chat/chat-types.js';
import type { EmbeddingsCapability } from './embeddings/embeddings-types.js';
import type { ImagesCapability } from './images/image-types.js';
import type { OcrCapability } from './ocr/ocr-types.js';
import type { ProviderAdapter, ProviderConfig, ProviderKind } from './provider.js';

/** What adapters get from the composition root. */
export interface ProviderDeps {
  /** Pooled HTTP client for calls to vendors. */
  upstream: UpstreamClient;
  /** Told when an upstream key is set aside (metric and log by the key's variable name). */
  onKeySetAside?: KeySetAside;
}

/** Builds the adapter of one configured provider. */
export type ProviderFactory = (config: ProviderConfig, deps: ProviderDeps) => ProviderAdapter;

/** Builds one capability of a provider. */
export type CapabilityFactory<T> = (config: ProviderConfig, deps: ProviderDeps) => T;

/** Capability builders composed into one adapter (e.g. the `local` kind's chat, images, OCR). */
export interface CapabilityFactories {
  chat?: CapabilityFactory<ChatCapability>;
  images?: CapabilityFactory<ImagesCapability>;
  ocr?: CapabilityFactory<OcrCapability>;
  embeddings?: CapabilityFactory<EmbeddingsCapability>;
}

/**
 * Composes separately written capabilities into one provider factory, so a kind's chat,
 * images and OCR can live in their own files and be added independently.
 */
export function composeProviderFactory(parts: CapabilityFactories): ProviderFactory {
  return (config, deps) => {
    const adapter: { -readonly [K in keyof ProviderAdapter]: ProviderAdapter[K] } = { id: config.id, kind: config.kind };
    if (parts.chat !== undefined) adapter.chat = parts.chat(config, deps);
    if (parts.images !== undefined) adapter.images = parts.images(config, deps);
    if (parts.ocr !== undefined) adapter.ocr = parts.ocr(config, deps);
    if (parts.embeddings !== undefined) adapter.embeddings = parts.embeddings(config, deps);
    return adapter;
  };
}

/** Factories by provider kind; kinds without a factory cannot be enabled. */
export type ProviderFactories = Partial<Record<ProviderKind, ProviderFactory>>;

/** A configured provider as loaded from the providers file. */
export interface LoadedProvider extends ProviderConfig {
  /** False when the provider has no credentials (its models answer 503). */
  enabled: boolean;
}

/** Looks up provider adapters by id. */
export interface ProviderRegistry {
  /** The adapter of an enabled provider; throws GatewayError when unknown or disabled. */
  get(providerId: string): ProviderAdapter;
  /** The chat capability of an enabled provider; throws `upstream_error` if it has none. */
  chat(providerId: string): ChatCapability;
  /** The images capability of an enabled provider; throws `upstream_error` if it has none. */
  images(providerId: string): ImagesCapability;
  /** The OCR capability of an enabled provider; throws `upstream_error` if it has none. */
  ocr(providerId: string): OcrCapability;
  /** Whether the provider exists and has credentials. */
  isEnabled(providerId: string): boolean;
  /** Ids of every configured provider with their state. */
  list(): Array<{ id: string; kind: ProviderKind; enabled: boolean }>;
}

/**
 * Builds every enabled provider's adapter up front, so a misconfiguration fails at boot and
 * not on the first request. Core code asks by provider id and never by vendor name.
 */
export function createProviderRegistry(
  configs: readonly LoadedProvider[],
  factories: ProviderFactories,
  deps: ProviderDeps,
): ProviderRegistry {
  const adapters = new Map<string, ProviderAdapter>();
  const byId = new Map(configs.map((config) => [config.id, config]));
  for (const config of configs) {
    if (!config.enabled) continue;
    const factory = factories[config.kind];
    if (factory === undefined) throw new Error(`No adapter for provider kind "${config.kind}" (provider ${config.id})`);
    const adapter = factory(config, deps);
    // The file's word on prefill is the provider's, whatever its kind's factory builds.
    adapters.set(config.id, config.prefill === undefined ? adapter : Object.assign(adapter, { prefill: config.prefill }));
  }
  function get(providerId: string): ProviderAdapter {
    const adapter = adapters.get(providerId);
    if (adapter !== undefined) return adapter;
    const config = byId.get(providerId);
    if (config === undefined) throw new GatewayError('upstream_error', 'The provider of this model cannot be reached.');
    // Which setting is missing is the operator's business (GET /v1/admin/models shows it):
    // clients learn only that the model cannot be served now.
    throw new GatewayError('service_unavailable', 'This model is not available right now. GET /v1/models lists the models that can be served.');
  }
  function capability<K extends 'chat' | 'images' | 'ocr'>(providerId: string, name: K): NonNullable<ProviderAdapter[K]> {
    const found = get(providerId)[name];
    if (found === undefined) throw new GatewayError('upstream_error', `Provider "${providerId}" does not offer ${name}`);
    return found;
  }
  return {
    get,
    chat: (providerId) => capability(providerId, 'chat'),
    images: (providerId) => capability(providerId, 'images'),
    ocr: (providerId) => capability(providerId, 'ocr'),
    isEnabled: (providerId) => adapters.has(providerId),
    list: () => configs.map((config) => ({ id: config.id, kind: config.kind, enabled: adapters.has(config.id) })),
  };
}
