import { BlockList } from 'node:net';
import { parseIpLiteral } from './ip-address.js';

/** Decides whether the gateway may connect to a resolved address. */
export type AddressPolicy = (address: string) => boolean;

/** Options of the default address policy. */
export interface AddressPolicyOptions {
  /** Permit 127.0.0.0/8 and ::1. Only for tests against local servers; never in production. */
  allowLoopback?: boolean;
}

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/** IPv4 ranges that are not publicly routable unicast (RFC 6890 special-purpose registry). */
const IPV4_BLOCKED: ReadonlyArray<[string, number]> = [
  ['0.0.0.0', 8], // "this network", includes the unspecified address
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, includes cloud metadata 169.254.169.254
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // TEST-NET-1
  ['192.88.99.0', 24], // 6to4 relay anycast
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // TEST-NET-2
  ['203.0.113.0', 24], // TEST-NET-3
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, includes broadcast
];

/** Special ranges inside IPv6 global unicast (2000::/3), which is the only space allowed. */
const IPV6_BLOCKED: ReadonlyArray<[string, number]> = [
  ['2001::', 23], // IETF protocol assignments: Teredo, benchmarking, ORCHID
  ['2001:db8::', 32], // documentation
  ['2002::', 16], // 6to4: reaches arbitrary IPv4, including private space
  ['3fff::', 20], // documentation
];

const BLOCKED = new BlockList();
for (const [network, prefix] of IPV4_BLOCKED) BLOCKED.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of IPV6_BLOCKED) BLOCKED.addSubnet(network, prefix, 'ipv6');

const GLOBAL_UNICAST_V6 = new BlockList();
GLOBAL_UNICAST_V6.addSubnet('2000::', 3, 'ipv6');

/**
 * True when the address is public unicast. IPv6 must lie in 2000::/3, which leaves out
 * loopback, unspecified, ULA fc00::/7, link-local fe80::/10, multicast ff00::/8 and the rest;
 * IPv4-mapped and NAT64 addresses are judged by the IPv4 address they reach.
 */
export function isPublicAddress(address: string, options: AddressPolicyOptions = {}): boolean {
  const ip = parseIpLiteral(address);
  if (ip === undefined) return false;
  const type = ip.family === 4 ? 'ipv4' : 'ipv6';
  if (options.allowLoopback === true && LOOPBACK.check(ip.address, type)) return true;
  if (BLOCKED.check(ip.address, type)) return false;
  return ip.family === 4 || GLOBAL_UNICAST_V6.check(ip.address, 'ipv6');
}

/** The default policy: only public addresses (plus loopback when a test asks for it). */
export function createAddressPolicy(options: AddressPolicyOptions = {}): AddressPolicy {
  return (address) => isPublicAddress(address, options);
}
