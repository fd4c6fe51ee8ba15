import type { Logger } from 'pino';
import { generateSigningKey, loadSigningKey } from './receipt-keys.js';
import { ReceiptSigner } from './receipt-signer.js';

/** What receipt signing reads from the configuration. */
export interface ReceiptConfig {
  readonly env: 'development' | 'test' | 'production';
  readonly receipts: {
    readonly signingKey: string | undefined;
    readonly keyId: string | undefined;
    readonly retiredKeys: ReadonlyArray<{ readonly kid: string; readonly x: string }>;
  };
}

/**
 * The receipt signer. Without a configured key one is made for this process: receipts still
 * verify against the keys endpoint while it runs, but not after a restart or across several
 * web processes, so production says so loudly.
 */
export function createReceiptSigner(config: ReceiptConfig, log: Logger): ReceiptSigner {
  const configured = config.receipts.signingKey;
  const key = configured ? loadSigningKey(configured, config.receipts.keyId) : generateSigningKey();
  if (!configured && config.env === 'production') {
    log.error('receipts are signed with a key made at boot; configure a receipt signing key so they stay verifiable');
  }
  const retired = config.receipts.retiredKeys.map((k) => ({ kty: 'OKP' as const, crv: 'Ed25519' as const, x: k.x, kid: k.kid, alg: 'EdDSA' as const, use: 'sig' as const }));
  return new ReceiptSigner(key, retired);
}
