import { hash, randomBytes } from 'node:crypto';

const PREFIX = 'sk-fbx-';
const RAW_KEY = /^sk-fbx-[A-Za-z0-9_-]{43}$/;

/** A freshly minted secret: the raw key (shown once), its hash and its display label. */
export interface MintedSecret {
  raw: string;
  hash: string;
  label: string;
}

/** SHA-256 of a raw key, hex; the only form in which keys are stored. */
export function hashKey(raw: string): string {
  return hash('sha256', raw, 'hex');
}

/** True when the string has the shape of a Farebox key (checked before any lookup). */
export function isWellFormedKey(raw: string): boolean {
  return RAW_KEY.test(raw);
}

/** Mints `sk-fbx-` + 43 base64url characters (32 random bytes). */
export function mintSecret(): MintedSecret {
  const raw = PREFIX + randomBytes(32).toString('base64url');
  return { raw, hash: hashKey(raw), label: `${PREFIX}${raw.slice(7, 11)}…${raw.slice(-3)}` };
}
