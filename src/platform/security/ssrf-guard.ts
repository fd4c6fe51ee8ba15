import { lookup } from 'node:dns/promises';
import { GatewayError } from '../errors/index.js';
import type { AddressPolicy } from './address-policy.js';
import { parseIpLiteral, type IpAddress } from './ip-address.js';

/** Resolves a host name to every address it has. */
export type HostResolver = (hostname: string) => Promise<IpAddress[]>;

/** The system resolver (getaddrinfo), all addresses, in the order the system returns them. */
export const systemResolver: HostResolver = async (hostname) => {
  const found = await lookup(hostname, { all: true, verbatim: true });
  return found.map((entry) => ({ address: entry.address, family: entry.family === 6 ? 6 : 4 }));
};

/** A URL that passed the guard, and the one address the connection must go to. */
export interface GuardedTarget {
  url: URL;
  address: IpAddress;
}

/** How to check one URL. */
export interface GuardOptions {
  /** Request field the URL came from, named in refusals (e.g. `document.document_url`). */
  param: string;
  policy: AddressPolicy;
  resolver: HostResolver;
}

function refuse(param: string, why: string): GatewayError {
  return new GatewayError('invalid_request', `Refusing to fetch ${param}: ${why}`, { param });
}

/** Parses the URL and applies the rules that need no network: https only, no credentials. */
export function parseGuardedUrl(raw: string, param: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw refuse(param, 'it is not a valid URL');
  }
  if (url.protocol !== 'https:') throw refuse(param, 'only https URLs are allowed');
  if (url.username !== '' || url.password !== '') throw refuse(param, 'URLs with credentials are not allowed');
  if (url.hostname === '') throw refuse(param, 'the URL has no host');
  return url;
}

/**
 * Checks a URL and resolves its host. Every resolved address must pass the policy (one bad
 * address refuses the URL: a host that resolves to both public and private space is exactly
 * what DNS rebinding uses). Returns the address the caller must pin its connection to.
 * Nothing is sent to the host before this returns.
 */
export async function guardUrl(raw: string, options: GuardOptions): Promise<GuardedTarget> {
  const { param, policy, resolver } = options;
  const url = parseGuardedUrl(raw, param);
  const literal = parseIpLiteral(url.hostname);
  let addresses: IpAddress[];
  if (literal !== undefined) {
    addresses = [literal];
  } else {
    try {
      addresses = await resolver(url.hostname);
    } catch (error) {
      throw new GatewayError('invalid_request', `Refusing to fetch ${param}: its host could not be resolved`, {
        param,
        cause: error,
      });
    }
  }
  const first = addresses[0];
  if (first === undefined) throw refuse(param, 'its host has no addresses');
  for (const candidate of addresses) {
    const ip = parseIpLiteral(candidate.address);
    if (ip === undefined || !policy(ip.address)) {
      throw refuse(param, 'its host resolves to a private, loopback, link-local or otherwise non-public address');
    }
  }
  const pinned = parseIpLiteral(first.address) ?? first;
  return { url, address: pinned };
}
