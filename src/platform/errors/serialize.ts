import type { GatewayError } from './gateway-error.js';

/** The wire shape of every error the gateway sends. */
export interface ErrorBody {
  error: { message: string; type: string; code: string; param: string | null; [extra: string]: unknown };
}

/** The one serializer: JSON bodies and stream error chunks both come from here. */
export function serializeError(err: GatewayError): ErrorBody {
  return { error: { ...err.extra, message: err.message, type: err.type, code: err.code, param: err.param } };
}

/** Statuses a client may retry unchanged (as openai-node does): timeouts, conflicts, limits, 5xx. */
function retryable(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/** Statuses that always tell the client when to come back. */
function needsRetryAfter(status: number): boolean {
  return status === 429 || status === 503;
}

/**
 * Headers that go with an error response: `Retry-After` (whole seconds, at least 1) on 429
 * and 503 and wherever the error carries one, and `x-should-retry: false` on errors a retry
 * cannot fix, so SDKs with automatic retries give up at once.
 */
export function errorHeaders(err: GatewayError): Record<string, string> {
  const headers: Record<string, string> = {};
  const retryAfter = err.retryAfterSeconds ?? (needsRetryAfter(err.status) ? 1 : undefined);
  if (retryAfter !== undefined) headers['Retry-After'] = String(retryAfter);
  // A key reused with another body stays reused; a retry cannot fix it.
  if (!retryable(err.status) || err.code === 'idempotency_key_reused') headers['x-should-retry'] = 'false';
  return headers;
}
