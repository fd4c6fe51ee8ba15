import { isIPv4, isIPv6 } from 'node:net';

/** A literal IP address in a normal form, with its family. */
export interface IpAddress {
  address: string;
  family: 4 | 6;
}

/** Expands an IPv6 literal (zone id stripped, `::` and a dotted-quad tail allowed) to 16 bytes. */
export function ipv6Bytes(address: string): Uint8Array | undefined {
  const plain = address.split('%')[0] ?? '';
  if (!isIPv6(plain)) return undefined;
  let text = plain;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted?.[1] !== undefined) {
    const v4 = dotted[1].split('.').map(Number);
    const hex = `${(((v4[0] ?? 0) << 8) | (v4[1] ?? 0)).toString(16)}:${(((v4[2] ?? 0) << 8) | (v4[3] ?? 0)).toString(16)}`;
    text = text.slice(0, -dotted[1].length) + hex;
  }
  const [head = '', tail] = text.split('::');
  const headGroups = head === '' ? [] : head.split(':');
  const tailGroups = tail === undefined || tail === '' ? [] : tail.split(':');
  const missing = 8 - headGroups.length - tailGroups.length;
  const groups = tail === undefined ? headGroups : [...headGroups, ...Array<string>(missing).fill('0'), ...tailGroups];
  if (groups.length !== 8) return undefined;
  const bytes = new Uint8Array(16);
  groups.forEach((group, i) => {
    const value = parseInt(group, 16);
    bytes[i * 2] = value >> 8;
    bytes[i * 2 + 1] = value & 0xff;
  });
  return bytes;
}

/** Formats 16 bytes as a full (uncompressed) IPv6 address. */
function formatIpv6(bytes: Uint8Array): string {
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push((((bytes[i] ?? 0) << 8) | (bytes[i + 1] ?? 0)).toString(16));
  return groups.join(':');
}

/**
 * The IPv4 address an IPv6 address stands for, when it embeds one in a way that routes to
 * it: IPv4-mapped (::ffff:a.b.c.d) and the NAT64 well-known prefix (64:ff9b::a.b.c.d).
 */
export function embeddedIpv4(bytes: Uint8Array): string | undefined {
  const prefixIs = (prefix: number[]): boolean => prefix.every((value, i) => bytes[i] === value);
  const mapped = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff];
  const nat64 = [0, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0];
  if (!prefixIs(mapped) && !prefixIs(nat64)) return undefined;
  return `${bytes[12]}.${bytes[13]}.${bytes[14]}.${bytes[15]}`;
}

/**
 * Parses a literal IP (IPv6 may come in URL brackets). IPv4 embedded in IPv6 is returned as the
 * IPv4 address it reaches, so every range check sees the real destination. Not an IP → undefined.
 */
export function parseIpLiteral(host: string): IpAddress | undefined {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  if (isIPv4(bare)) return { address: bare, family: 4 };
  const bytes = ipv6Bytes(bare);
  if (bytes === undefined) return undefined;
  const v4 = embeddedIpv4(bytes);
  return v4 === undefined ? { address: formatIpv6(bytes), family: 6 } : { address: v4, family: 4 };
}
