import type { LookupAddress, LookupOptions } from 'node:dns';
import { Agent } from 'undici';
import type { IpAddress } from './ip-address.js';

/** TLS trust settings for guarded fetches. */
export interface GuardedTlsOptions {
  /**
   * CA certificates to trust (PEM) instead of the default roots, e.g. a test server's self-signed
   * certificate. Leave unset in production.
   */
  ca?: string | Buffer | Array<string | Buffer>;
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * An undici agent whose every connection goes to one already-checked address, whatever the
 * host name resolves to by then: the socket's DNS lookup is replaced, so DNS rebinding
 * between the check and the connect cannot swap the destination. TLS still verifies the
 * certificate against the URL's host name (SNI and hostname check use the URL host).
 */
export function createPinnedAgent(address: IpAddress, tls: GuardedTlsOptions, connectTimeoutMs: number): Agent {
  const pinnedLookup = (_hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    // net.connect asks for `all` when it races address families (autoSelectFamily).
    if (options.all === true) callback(null, [{ address: address.address, family: address.family }]);
    else callback(null, address.address, address.family);
  };
  return new Agent({
    connect: {
      lookup: pinnedLookup,
      timeout: connectTimeoutMs,
      rejectUnauthorized: true,
      ...(tls.ca === undefined ? {} : { ca: tls.ca }),
    },
    // One request per agent; no reason to keep sockets around.
    pipelining: 0,
    connections: 1,
  });
}
