import { ERROR_TABLE, type ErrorCode, type ErrorType } from './error-table.js';

/** Options that refine a {@link GatewayError}. */
export interface GatewayErrorOptions {
  /** The request field at fault, as a dotted path (`messages.0.role`). */
  readonly param?: string | null;
  /** Seconds a client should wait before retrying; sent as `Retry-After`. */
  readonly retryAfterSeconds?: number;
  /** The underlying cause, logged but never sent to clients. */
  readonly cause?: unknown;
  /** Extra fields of the error body (e.g. the quote of a `max_cost_exceeded`). */
  readonly extra?: Readonly<Record<string, unknown>>;
  /** What an upstream did, when the error came from one: decides failover, never sent to clients. */
  readonly upstream?: UpstreamFailure;
}

/** An upstream's failure as seen on the wire: its HTTP status, or the transport fault. */
export interface UpstreamFailure {
  /** The vendor's HTTP status, when it answered. */
  readonly status?: number;
  /** The vendor's error code (`insufficient_quota`, …), when it sent one. */
  readonly code?: string;
  /** A transport fault: `connect`, `reset` or `timeout` (before the answer's first byte). */
  readonly transport?: 'connect' | 'reset' | 'timeout';
}

/**
 * The only error type that crosses module boundaries. Its code fixes the HTTP status and
 * type through the error table, so no handler picks statuses on its own.
 */
export class GatewayError extends Error {
  readonly code: ErrorCode;
  readonly param: string | null;
  readonly retryAfterSeconds: number | undefined;
  readonly extra: Readonly<Record<string, unknown>> | undefined;
  readonly upstream: UpstreamFailure | undefined;

  constructor(code: ErrorCode, message: string, options: GatewayErrorOptions = {}) {
    super(message, { cause: options.cause });
    this.name = 'GatewayError';
    this.code = code;
    this.param = options.param ?? null;
    this.extra = options.extra;
    this.upstream = options.upstream;
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
