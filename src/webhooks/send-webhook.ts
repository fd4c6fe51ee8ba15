import { isGatewayError } from '../platform/errors/index.js';
import { createPinnedAgent, type GuardedTarget } from '../platform/security/index.js';
import { signatureHeaders } from './webhook-signature.js';

/** One delivery attempt, ready to send. */
export interface SendRequest {
  url: string;
  msgId: string;
  body: string;
  /** Secrets to sign with (the current one, and during a rotation the previous one). */
  secrets: readonly string[];
  timeoutMs: number;
  /** The URL rules: resolves and checks the host, returns the address to pin to. */
  guard: (url: string) => Promise<GuardedTarget>;
  now?: () => number;
}

/** How an attempt went. `permanent`: retrying cannot help (the URL is refused by the rules). */
export interface SendResult {
  ok: boolean;
  status: number | null;
  error: string | null;
  permanent: boolean;
}

/** The part of a receiver's answer read (and discarded): enough to finish the exchange. */
const MAX_RESPONSE_BYTES = 64 * 1024;

function describe(error: unknown): string {
  if (isGatewayError(error)) return error.message;
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'string' ? `connection failed (${code})` : 'connection failed';
}

/**
 * Sends one signed delivery: the URL is checked again (its DNS may have changed since it was
 * registered) and the connection pinned to the checked address; redirects are not followed;
 * a 2xx answer is success. The timestamp is the attempt's, so a retry a day later still
 * passes the receiver's clock-skew check.
 */
export async function sendWebhook(request: SendRequest): Promise<SendResult> {
  let target: GuardedTarget;
  try {
    target = await request.guard(request.url);
  } catch (err) {
    // A name that does not resolve now may resolve later; a refused address or scheme will not change.
    const unresolved = isGatewayError(err) && err.message.includes('could not be resolved');
    return { ok: false, status: null, error: describe(err), permanent: isGatewayError(err) && !unresolved };
  }
  const agent = createPinnedAgent(target.address, {}, request.timeoutMs);
  const timestamp = Math.floor((request.now?.() ?? Date.now()) / 1000);
  try {
    const response = await agent.request({
      origin: target.url.origin,
      path: `${target.url.pathname}${target.url.search}`,
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'Farebox-Webhooks/1', ...signatureHeaders(request.secrets, request.msgId, timestamp, request.body) },
      body: request.body,
      headersTimeout: request.timeoutMs,
      bodyTimeout: request.timeoutMs,
    });
    let read = 0;
    for await (const chunk of response.body) {
      read += (chunk as Buffer).length;
      if (read > MAX_RESPONSE_BYTES) break;
    }
    response.body.destroy();
    const ok = response.statusCode >= 200 && response.statusCode < 300;
    return { ok, status: response.statusCode, error: ok ? null : `receiver answered HTTP ${response.statusCode}`, permanent: false };
  } catch (err) {
    return { ok: false, status: null, error: describe(err), permanent: false };
  } finally {
    agent.destroy().catch(() => undefined);
  }
}
