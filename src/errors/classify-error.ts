import { MongoNetworkError, MongoNotConnectedError, MongoServerSelectionError, MongoTopologyClosedError } from 'mongodb';
import { GatewayError, isGatewayError } from './gateway-error.js';

function statusOf(err: unknown): number | undefined {
  if (typeof err !== 'object' || err === null || !('status' in err)) return undefined;
  return typeof err.status === 'number' ? err.status : undefined;
}

function isRedisUnavailable(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  return (
    err.name === 'MaxRetriesPerRequestError' ||
    /enableOfflineQueue|Connection is closed|ECONNREFUSED|ETIMEDOUT|Stream isn't writeable/i.test(err.message)
  );
}

/**
 * Turns anything thrown into a GatewayError: stores that are down become 503 with
 * Retry-After, body-parser errors become 400/413, and the rest a 500 whose details
 * stay in the logs.
 */
export function classifyError(err: unknown): GatewayError {
  if (isGatewayError(err)) return err;
  if (
    err instanceof MongoServerSelectionError ||
    err instanceof MongoNetworkError ||
    err instanceof MongoNotConnectedError ||
    err instanceof MongoTopologyClosedError ||
    isRedisUnavailable(err)
  ) {
    return new GatewayError('service_unavailable', 'A backing service is unavailable; retry shortly.', {
      retryAfterSeconds: 1,
      cause: err,
    });
  }
  const status = statusOf(err);
  if (status === 413) return new GatewayError('payload_too_large', 'Request body is too large.', { cause: err });
  if (status === 400 || status === 415 || status === 422) {
    return new GatewayError('invalid_request', 'Malformed request body: expected valid JSON.', { cause: err });
  }
  return new GatewayError('internal_error', 'Internal server error.', { cause: err });
}
