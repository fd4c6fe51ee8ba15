import { createHmac, randomBytes } from 'node:crypto';

const SECRET_PREFIX = 'whsec_';

/** A new endpoint secret: `whsec_` + base64 of 32 random bytes (the Standard Webhooks form). */
export function mintWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

/** One signature, `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`. */
export function signPayload(secret: string, msgId: string, timestampSeconds: number, body: string): string {
  const key = Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
  const mac = createHmac('sha256', key).update(`${msgId}.${timestampSeconds}.${body}`).digest('base64');
  return `v1,${mac}`;
}

/**
 * The three Standard Webhooks headers. Several secrets (during a rotation) give several
 * space-separated signatures; a receiver accepts the message when any one verifies.
 */
export function signatureHeaders(secrets: readonly string[], msgId: string, timestampSeconds: number, body: string): Record<string, string> {
  return {
    'webhook-id': msgId,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': secrets.map((s) => signPayload(s, msgId, timestampSeconds, body)).join(' '),
  };
}
