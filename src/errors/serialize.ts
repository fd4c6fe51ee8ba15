import type { GatewayError } from './gateway-error.js';

/** The wire shape of every error the gateway sends. */
export interface ErrorBody {
  error: { message: string; type: string; code: string; param: string | null };
}

/** The one serializer: JSON bodies and stream error chunks both come from here. */
export function serializeError(err: GatewayError): ErrorBody {
  return { error: { message: err.message, type: err.type, code: err.code, param: err.param } };
}

/** Headers that go with an error response (`Retry-After` where the error carries one). */
export function errorHeaders(err: GatewayError): Record<string, string> {
  return err.retryAfterSeconds === undefined ? {} : { 'Retry-After': String(err.retryAfterSeconds) };
}
