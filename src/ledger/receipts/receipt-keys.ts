import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';

/** The Ed25519 key that signs receipts, with its key id. */
export interface SigningKey {
  readonly kid: string;
  readonly privateKey: KeyObject;
  readonly publicKey: KeyObject;
}

/** One public key as JWKS serves it (RFC 8037, OKP / Ed25519). */
export interface PublicJwk {
  kty: 'OKP';
  crv: 'Ed25519';
  x: string;
  kid: string;
  alg: 'EdDSA';
  use: 'sig';
}

/** A key id derived from the public key, stable across processes that share the key. */
function derivedKid(publicKey: KeyObject): string {
  const der = publicKey.export({ type: 'spki', format: 'der' });
  return `rk_${createHash('sha256').update(der).digest('base64url').slice(0, 16)}`;
}

/** Reads a PKCS8 private key given as PEM text or as base64 of its DER bytes. */
function parsePrivateKey(text: string): KeyObject {
  const trimmed = text.trim();
  if (trimmed.startsWith('-----BEGIN')) return createPrivateKey({ key: trimmed, format: 'pem' });
  return createPrivateKey({ key: Buffer.from(trimmed, 'base64'), format: 'der', type: 'pkcs8' });
}

/**
 * The signing key from its configured text (PEM or base64 PKCS8). Throws a message that
 * names neither the key nor its bytes when the text is not an Ed25519 private key.
 */
export function loadSigningKey(text: string, kid?: string): SigningKey {
  let privateKey: KeyObject;
  try {
    privateKey = parsePrivateKey(text);
  } catch {
    throw new Error('the receipt signing key is not a PKCS8 private key (PEM or base64 DER)');
  }
  if (privateKey.asymmetricKeyType !== 'ed25519') throw new Error('the receipt signing key must be an Ed25519 key');
  const publicKey = createPublicKey(privateKey);
  return { kid: kid ?? derivedKid(publicKey), privateKey, publicKey };
}

/** A fresh key (development and tests without a configured one). */
export function generateSigningKey(): SigningKey {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return { kid: derivedKid(publicKey), privateKey, publicKey };
}

/** PEM text of a new Ed25519 private key (what `npm start` keeps under `.farebox`). */
export function newSigningKeyPem(): string {
  return generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
}

/** The public half as a JWK. */
export function publicJwk(key: SigningKey): PublicJwk {
  const jwk = key.publicKey.export({ format: 'jwk' });
  return { kty: 'OKP', crv: 'Ed25519', x: String(jwk.x), kid: key.kid, alg: 'EdDSA', use: 'sig' };
}
