import { GatewayError } from '../../platform/errors/index.js';
import type { ProviderConfig } from '../provider.js';

/** Base URL and key of a remote provider; a provider missing either cannot serve requests. */
export function requireEndpoint(config: ProviderConfig): { baseUrl: string; apiKey: string } {
  if (config.baseUrl === undefined || config.apiKey === undefined) {
    throw new GatewayError('service_unavailable', `Provider ${config.id} is not configured (missing base URL or credentials)`);
  }
  return { baseUrl: config.baseUrl, apiKey: config.apiKey };
}
