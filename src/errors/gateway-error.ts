import { ERROR_TABLE, type ErrorCode, type ErrorType } from './error-table.js';

/** Options that refine a {@link GatewayError}. */
export interface GatewayErrorOptions {
  /** The request field at fault, as a dotted path (`messages.0.role`). */
  readonly param?: string | null;
  /** Seconds a client should wait before retrying; sent as `Retry-After`. */
  readonly retryAfterSeconds?: number;
  /** The underlying cause, logged but never sent to clients. */
  readonly cause?: unknown;
}

/**
 * The only error type that crosses module boundaries. Its code fixes the HTTP status and
 * type through the error table, so no handler picks statuses on its own.
 */
export class GatewayError extends Error {
  readonly code: ErrorCode;
  readonly param: string | null;
  readonly retryAfterSeconds: number | undefined;

  constructor(code: ErrorCode, message: string, options: GatewayErrorOptions = {}) {
    super(message, { cause: options.cause });
    this.name = 'GatewayError';
    this.code = code;
    this.param = options.param ?? null;
    this.retryAfterSeconds =
      options.retryAfterSeconds === undefined ? undefined : Math.max(1, Math.ceil(options.retryAfterSeconds));
  }

  /** HTTP status from the error table. */
  get status(): number {
    return ERROR_TABLE[this.code].status;
  }

  /** Error `type` from the error table. */
  get type(): ErrorType {
    return ERROR_TABLE[this.code].type;
  }
}

/** Narrows an unknown thrown value to a GatewayError. */
export function isGatewayError(value: unknown): value is GatewayError {
  return value instanceof GatewayError;
}

/** Wraps anything thrown into a GatewayError; unknown errors become a generic 500. */
export function toGatewayError(value: unknown): GatewayError {
  if (isGatewayError(value)) return value;
  return new GatewayError('internal_error', 'Internal server error', { cause: value });
}
