import { GatewayError } from '../../errors/gateway-error.js';

/** Longest upstream message passed on to clients; vendor bodies can be huge HTML pages. */
const MAX_MESSAGE_LENGTH = 500;

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

function withDetail(prefix: string, message: string | undefined): string {
  return message === undefined ? prefix : `${prefix}: ${sanitizeUpstreamMessage(message)}`;
}

/**
 * Maps a non-2xx upstream response to a GatewayError. 401/403 mean the gateway's own
 * credentials were refused, so they are the gateway's fault (502), never the client's.
 */
export function upstreamStatusError(
  status: number,
  headers: Readonly<Record<string, string | undefined>>,
  bodyText: string,
): GatewayError {
  const message = extractUpstreamMessage(bodyText);
  if (status === 429) {
    const retryAfterSeconds = parseRetryAfter(headers['retry-after']);
    return new GatewayError('rate_limited', withDetail('The upstream provider is rate limiting', message), {
      retryAfterSeconds,
    });
  }
  if (status === 408) return new GatewayError('upstream_timeout', withDetail('The upstream provider timed out', message));
  if (status === 400 || status === 422) {
    return new GatewayError('invalid_request', withDetail('The upstream provider rejected the request', message));
  }
  if (status === 401 || status === 403) {
    return new GatewayError('upstream_error', `The upstream provider refused the gateway's credentials (status ${status})`);
  }
  if (status === 404) return new GatewayError('upstream_error', withDetail('The upstream provider returned 404', message));
  return new GatewayError('upstream_error', withDetail(`The upstream provider failed with status ${status}`, message));
}
