import { GatewayError, isGatewayError } from './gateway-error.js';
import { isTransientStoreError } from './transient-store-error.js';

function statusOf(err: unknown): number | undefined {
  if (typeof err !== 'object' || err === null || !('status' in err)) return undefined;
  return typeof err.status === 'number' ? err.status : undefined;
}

/** 400 for a request body that is not the JSON object or array a route reads. */
export function malformedBody(cause: unknown): GatewayError {
  return new GatewayError('invalid_request', 'Malformed request body: expected valid JSON.', { cause });
}

/**
 * Turns anything thrown into a GatewayError: stores that are down or failing over become 503
 * with Retry-After, body-parser errors become 400/413, and the rest a 500 whose details
 * stay in the logs.
 */
export function classifyError(err: unknown): GatewayError {
  if (isGatewayError(err)) return err;
  if (isTransientStoreError(err)) {
    return new GatewayError('service_unavailable', 'A backing service is unavailable; retry shortly.', {
      retryAfterSeconds: 1,
      cause: err,
    });
  }
  const status = statusOf(err);
  if (status === 413) return new GatewayError('payload_too_large', 'Request body is too large.', { cause: err });
  if (status === 400 || status === 415 || status === 422) {
    return malformedBody(err);
  }
  return new GatewayError('internal_error', 'Internal server error.', { cause: err });
}
