import { GatewayError } from '../../platform/errors/index.js';

type RateLimitOptions = NonNullable<ConstructorParameters<typeof GatewayError>[2]>;

/** Longest upstream message passed on to clients; vendor bodies can be huge HTML pages. */
const MAX_MESSAGE_LENGTH = 500;

/**
 * A vendor's rate limit (429). `stated` says whether it named a wait (`Retry-After`): only a
 * stated wait is worth waiting out on the same route; without one the default second is a
 * guess, and the request is better served by the next route.
 */
export class UpstreamRateLimit extends GatewayError {
  constructor(
    message: string,
    readonly stated: boolean,
    options: RateLimitOptions,
  ) {
    super('rate_limited', message, options);
  }
}

/** Parses `Retry-After` (delta seconds or HTTP date) into whole seconds, at least 1. */
export function parseRetryAfter(value: string | undefined, now: number = Date.now()): number {
  if (value === undefined || value.trim() === '') return 1;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.max(1, Math.ceil(Number(trimmed)));
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return 1;
  return Math.max(1, Math.ceil((date - now) / 1000));
}

function stringAt(value: unknown, key: string): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const found = (value as Record<string, unknown>)[key];
  return typeof found === 'string' ? found : undefined;
}

/**
 * Pulls a human message out of the error bodies vendors send: OpenAI and Anthropic
 * (`{error: {message}}`), Mistral/FastAPI (`{message}`, `{detail}`), or plain text.
 */
export function extractUpstreamMessage(bodyText: string): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(bodyText);
  } catch {
    const text = bodyText.trim();
    return text === '' || text.startsWith('<') ? undefined : text;
  }
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const record = parsed as Record<string, unknown>;
  const nested = record.error;
  if (typeof nested === 'string') return nested;
  const detail = record.detail;
  const detailText = Array.isArray(detail) ? JSON.stringify(detail) : typeof detail === 'string' ? detail : undefined;
  return stringAt(nested, 'message') ?? stringAt(record, 'message') ?? detailText;
}

/** Keeps an upstream message safe to show: bounded, and with anything key-like masked. */
export function sanitizeUpstreamMessage(message: string): string {
  const masked = message.replace(/\b(sk|pk|rk|key|gsk|xai)[-_][A-Za-z0-9_-]{8,}/g, '[redacted]');
  return masked.length > MAX_MESSAGE_LENGTH ? `${masked.slice(0, MAX_MESSAGE_LENGTH)}…` : masked;
}

/** Error types and codes vendors use when the gateway's own upstream account is out of money. */
const ACCOUNT_ERROR_KINDS: ReadonlySet<string> = new Set([
  'insufficient_quota', // OpenAI (429)
  'billing_error', // Anthropic (402)
  'billing_hard_limit_reached', // OpenAI
  'billing_not_active', // OpenAI
  'insufficient_balance', // DeepSeek-style proxies
]);

/** Messages that say the same where the type does not (Anthropic sends a 400 for a low balance). */
const ACCOUNT_ERROR_MESSAGE = /credit balance is too low|exceeded your current quota/i;

/**
 * Whether an upstream error body says the gateway's upstream account has no quota or credit.
 * That is the operator's problem, not the client's: retrying or fixing the request cannot help.
 */
export function isUpstreamAccountError(bodyText: string): boolean {
  let parsed: unknown;
  try {
    parsed = JSON.parse(bodyText);
  } catch {
    return false;
  }
  const error = typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>).error : undefined;
  const kinds = [stringAt(error, 'type'), stringAt(error, 'code')].filter((k): k is string => k !== undefined);
  if (kinds.some((k) => ACCOUNT_ERROR_KINDS.has(k.toLowerCase()))) return true;
  return ACCOUNT_ERROR_MESSAGE.test(stringAt(error, 'message') ?? '');
}

function withDetail(prefix: string, message: string | undefined): string {
  return message === undefined ? prefix : `${prefix}: ${sanitizeUpstreamMessage(message)}`;
}

/**
 * Maps a non-2xx upstream response to a GatewayError. 401/403 mean the gateway's own
 * credentials were refused, and a quota or billing error means its upstream account is out
 * of money (even when sent as 429 or 400): both are the gateway's fault (502), never the
 * client's own rate limit or bad request.
 */
export function upstreamStatusError(
  status: number,
  headers: Readonly<Record<string, string | undefined>>,
  bodyText: string,
): GatewayError {
  const message = extractUpstreamMessage(bodyText);
  const code = extractUpstreamCode(bodyText);
  const upstream = code === undefined ? { status } : { status, code };
  if (status >= 400 && status < 500 && isUpstreamAccountError(bodyText)) {
    return new GatewayError('upstream_error', withDetail(`The upstream provider refused the gateway's account (status ${status})`, message), { upstream });
  }
  if (status === 429) {
    const stated = headers['retry-after'];
    const retryAfterSeconds = parseRetryAfter(stated);
    return new UpstreamRateLimit(withDetail('The upstream provider is rate limiting', message), stated !== undefined && stated.trim() !== '', {
      retryAfterSeconds,
      upstream,
    });
  }
  if (status === 408) return new GatewayError('upstream_timeout', withDetail('The upstream provider timed out', message), { upstream });
  if (status === 400 || status === 422) {
    return new GatewayError('invalid_request', withDetail('The upstream provider rejected the request', message), { upstream });
  }
  if (status === 413) return new GatewayError('payload_too_large', withDetail('The upstream provider found the request too large', message), { upstream });
  if (status === 401 || status === 403) {
    return new GatewayError('upstream_error', `The upstream provider refused the gateway's credentials (status ${status})`, { upstream });
  }
  if (status === 404) return new GatewayError('upstream_error', withDetail('The upstream provider returned 404', message), { upstream });
  return new GatewayError('upstream_error', withDetail(`The upstream provider failed with status ${status}`, message), { upstream });
}

/** The vendor's machine-readable error code (`error.code`, else `error.type`), if any. */
export function extractUpstreamCode(bodyText: string): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(bodyText);
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const nested = (parsed as Record<string, unknown>).error;
  const code = stringAt(nested, 'code') ?? stringAt(nested, 'type');
  return code === undefined ? undefined : code.slice(0, 64);
}
