import { GatewayError, isGatewayError } from '../../platform/errors/index.js';

/** Why a request was cut short by the gateway itself rather than by the network. */
export interface AbortContext {
  /** The caller's signal (client disconnect, job cancellation, caller deadline). */
  readonly callerSignal: AbortSignal;
  /** True once the gateway's own total deadline fired. */
  readonly totalTimedOut: boolean;
  readonly totalMs?: number;
}

const TIMEOUT_MESSAGES: Readonly<Record<string, string>> = {
  UND_ERR_CONNECT_TIMEOUT: 'Timed out connecting to the upstream provider',
  UND_ERR_HEADERS_TIMEOUT: 'The upstream provider did not start responding in time',
  UND_ERR_BODY_TIMEOUT: 'The upstream provider stalled mid-response',
};

function errorCode(err: unknown): string | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string') return code;
  // fetch-style failures wrap the socket error in `cause`.
  return errorCode((err as { cause?: unknown }).cause);
}

function abortReasonError(reason: unknown): GatewayError {
  if (isGatewayError(reason)) return reason;
  if (reason instanceof Error && reason.name === 'TimeoutError') {
    return new GatewayError('upstream_timeout', 'The upstream provider did not finish in time', { cause: reason });
  }
  return new GatewayError('upstream_error', 'The upstream request was aborted', { cause: reason });
}

/**
 * Maps a transport failure (undici error, socket error, abort) to a GatewayError. Only error
 * codes reach the message: a raw message could carry URLs or header values.
 */
export function toTransportError(err: unknown, ctx: AbortContext): GatewayError {
  if (isGatewayError(err)) return err;
  if (ctx.totalTimedOut) {
    return new GatewayError('upstream_timeout', `The upstream provider did not finish within ${ctx.totalMs ?? 0} ms`, {
      cause: err,
      upstream: { transport: 'timeout' },
    });
  }
  if (ctx.callerSignal.aborted) return abortReasonError(ctx.callerSignal.reason);
  const code = errorCode(err);
  const timeoutMessage = code === undefined ? undefined : TIMEOUT_MESSAGES[code];
  if (timeoutMessage !== undefined) return new GatewayError('upstream_timeout', timeoutMessage, { cause: err, upstream: { transport: 'timeout' } });
  const suffix = code === undefined ? '' : ` (${code})`;
  const transport = code !== undefined && CONNECT_CODES.has(code) ? 'connect' : 'reset';
  return new GatewayError('upstream_error', `The upstream connection failed${suffix}`, { cause: err, upstream: { transport } });
}

/** Socket codes of a connection that was never made (anything else is a reset). */
const CONNECT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);
