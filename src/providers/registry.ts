import { GatewayError } from '../errors/gateway-error.js';
import type { UpstreamClient } from './http/upstream-client.js';
import type { ProviderAdapter, ProviderConfig, ProviderKind } from './provider.js';

/** What adapters get from the composition root. */
export interface ProviderDeps {
  /** Pooled HTTP client for calls to vendors. */
  upstream: UpstreamClient;
}

/** Builds the adapter of one configured provider. */
export type ProviderFactory = (config: ProviderConfig, deps: ProviderDeps) => ProviderAdapter;

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
    adapters.set(config.id, factory(config, deps));
  }
  return {
    get(providerId) {
      const adapter = adapters.get(providerId);
      if (adapter !== undefined) return adapter;
      const config = byId.get(providerId);
      if (config === undefined) {
        throw new GatewayError('upstream_error', `Provider "${providerId}" is not configured`);
      }
      const keyHint = config.apiKeyEnv === undefined ? '' : ` (set ${config.apiKeyEnv})`;
      throw new GatewayError('service_unavailable', `Provider "${providerId}" is disabled: no credentials${keyHint}`);
    },
    isEnabled: (providerId) => adapters.has(providerId),
    list: () => configs.map((config) => ({ id: config.id, kind: config.kind, enabled: adapters.has(config.id) })),
  };
}
