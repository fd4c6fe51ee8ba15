import { createAddressPolicy, type GuardedTarget, guardUrl, type HostResolver, systemResolver } from '../platform/security/index.js';

/** Options of the endpoint URL rules. */
export interface EndpointUrlOptions {
  /** Permit loopback receivers (tests only; `WEBHOOK_ALLOW_LOOPBACK`). */
  allowLoopback: boolean;
  resolver?: HostResolver;
}

/**
 * The outbound URL rules every other fetch obeys (https, no credentials, every resolved
 * address public), applied to a webhook endpoint. Run at registration (a 400 naming `url`)
 * and again before each delivery, whose connection is pinned to the address checked.
 */
export function endpointGuard(options: EndpointUrlOptions): (url: string) => Promise<GuardedTarget> {
  const policy = createAddressPolicy({ allowLoopback: options.allowLoopback });
  const resolver = options.resolver ?? systemResolver;
  return (url) => guardUrl(url, { param: 'url', policy, resolver });
}
