import { sign, verify, type KeyObject } from 'node:crypto';
import { publicJwk, type PublicJwk, type SigningKey } from './receipt-keys.js';
import type { Receipt, SignedReceipt } from './receipt-types.js';

/** Signs receipts with the current key; serves the public keys that verify them. */
export class ReceiptSigner {
  constructor(
    private readonly key: SigningKey,
    /** Public keys of earlier signing keys, still served so old receipts keep verifying. */
    private readonly retired: readonly PublicJwk[] = [],
  ) {}

  /** Signs a receipt (Ed25519 over the UTF-8 bytes of its JSON text). */
  sign(receipt: Receipt): SignedReceipt {
    return this.signText(JSON.stringify(receipt));
  }

  /** Signs a receipt given as its exact JSON text. */
  signText(payload: string): SignedReceipt {
    const signature = sign(null, Buffer.from(payload, 'utf8'), this.key.privateKey).toString('base64url');
    return { kid: this.key.kid, alg: 'EdDSA', payload, signature };
  }

  /** The JWKS document: the current key first, then retired ones. */
  jwks(): { keys: PublicJwk[] } {
    return { keys: [publicJwk(this.key), ...this.retired] };
  }
}

/** Verifies a signed receipt against one public key; false for any tampering. */
export function verifyReceipt(signed: Pick<SignedReceipt, 'payload' | 'signature'>, publicKey: KeyObject): boolean {
  try {
    return verify(null, Buffer.from(signed.payload, 'utf8'), publicKey, Buffer.from(signed.signature, 'base64url'));
  } catch {
    return false;
  }
}
