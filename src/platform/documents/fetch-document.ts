import type { Dispatcher } from 'undici';
import { GatewayError, isGatewayError } from '../errors/index.js';
import {
  type AddressPolicy,
  createAddressPolicy,
  createPinnedAgent,
  type GuardedTlsOptions,
  guardUrl,
  type HostResolver,
  systemResolver,
} from '../security/index.js';

/** How to fetch a client-supplied document URL. */
export interface FetchDocumentOptions {
  url: string;
  /** Request field the URL came from, named in errors (e.g. `document.document_url`). */
  param: string;
  /** Largest body accepted; larger → payload_too_large. */
  maxBytes: number;
  /** Deadline for the whole fetch, redirects included; exceeded → upstream_timeout. */
  timeoutMs: number;
  /** The caller's cancellation (client gone, job cancelled). */
  signal?: AbortSignal;
  /** Redirects followed, each re-checked like the first URL. Default 3. */
  maxRedirects?: number;
  /** Permit loopback destinations. Tests only; default false. */
  allowLoopback?: boolean;
  /** TLS trust overrides (tests with a self-signed server). */
  tls?: GuardedTlsOptions;
  /** Host resolver; default the system resolver. Tests inject fake public names. */
  resolver?: HostResolver;
  /** Address policy replacing the default one (which `allowLoopback` configures). Tests only. */
  addressPolicy?: AddressPolicy;
}

/** A downloaded document. */
export interface FetchedDocument {
  data: Buffer;
  /** Media type from Content-Type, lower case, without parameters. */
  contentType: string | undefined;
  /** The URL the body came from, after redirects. */
  finalUrl: string;
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const DEFAULT_MAX_REDIRECTS = 3;

function headerValue(headers: Dispatcher.ResponseData['headers'], name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function failure(param: string, why: string, cause?: unknown): GatewayError {
  return new GatewayError('invalid_request', `Could not fetch ${param}: ${why}`, { param, cause });
}

async function readBody(response: Dispatcher.ResponseData, param: string, maxBytes: number): Promise<Buffer> {
  const declared = Number(headerValue(response.headers, 'content-length'));
  const tooLarge = (): GatewayError =>
    new GatewayError('payload_too_large', `The document at ${param} exceeds ${maxBytes} bytes`, { param });
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response.body) {
    const bytes = chunk as Buffer;
    size += bytes.length;
    if (size > maxBytes) throw tooLarge();
    chunks.push(bytes);
  }
  return Buffer.concat(chunks);
}

/** Settles with the promise, or rejects once the signal fires (DNS lookups take no signal). */
function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

interface HopResult {
  redirect?: string;
  document?: FetchedDocument;
}

/** One request to one checked URL; a redirect is returned, not followed. */
async function fetchHop(url: string, options: FetchDocumentOptions, policy: AddressPolicy, signal: AbortSignal): Promise<HopResult> {
  const { param } = options;
  const target = await raceAbort(guardUrl(url, { param, policy, resolver: options.resolver ?? systemResolver }), signal);
  const agent = createPinnedAgent(target.address, options.tls ?? {}, options.timeoutMs);
  try {
    const response = await agent.request({
      origin: target.url.origin,
      path: `${target.url.pathname}${target.url.search}`,
      method: 'GET',
      headers: { accept: 'application/pdf, image/*;q=0.9, */*;q=0.5', 'user-agent': 'farebox-document-fetch' },
      signal,
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
    });
    try {
      const location = headerValue(response.headers, 'location');
      if (REDIRECT_STATUSES.has(response.statusCode) && location !== undefined) {
        return { redirect: new URL(location, target.url).toString() };
      }
      if (response.statusCode < 200 || response.statusCode > 299) {
        throw failure(param, `the server answered with HTTP status ${response.statusCode}`);
      }
      const data = await readBody(response, param, options.maxBytes);
      const contentType = headerValue(response.headers, 'content-type')?.split(';')[0]?.trim().toLowerCase();
      return { document: { data, contentType: contentType || undefined, finalUrl: target.url.toString() } };
    } finally {
      // Unread bodies (redirects, errors) are dropped; the abort error that destroying a
      // body stream emits has no one else to go to.
      response.body.on('error', () => undefined);
      response.body.destroy();
    }
  } finally {
    agent.destroy().catch(() => undefined);
  }
}

function mapError(error: unknown, options: FetchDocumentOptions, deadline: AbortSignal): GatewayError {
  if (isGatewayError(error)) return error;
  if (deadline.aborted && !(options.signal?.aborted ?? false)) {
    return new GatewayError('upstream_timeout', `The document at ${options.param} did not download within ${options.timeoutMs} ms`, {
      cause: error,
    });
  }
  if (options.signal?.aborted === true) {
    return new GatewayError('upstream_timeout', 'The document fetch was cancelled', { cause: error });
  }
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  const timedOut = typeof code === 'string' && code.endsWith('TIMEOUT');
  if (timedOut) {
    return new GatewayError('upstream_timeout', `The document at ${options.param} did not download in time`, { cause: error });
  }
  return failure(options.param, typeof code === 'string' ? `the connection failed (${code})` : 'the connection failed', error);
}

/**
 * Downloads a client-supplied https URL behind the SSRF guard: https only; every address the
 * host resolves to must be public (see isPublicAddress) and the connection is pinned to the
 * checked address; redirects are followed by hand and each hop is checked again; body size
 * and total time are bounded. Refusals and unreachable or failing servers are invalid_request
 * (param = options.param); an over-size body is payload_too_large; running out of time is
 * upstream_timeout.
 */
export async function fetchDocument(options: FetchDocumentOptions): Promise<FetchedDocument> {
  const policy = options.addressPolicy ?? createAddressPolicy({ allowLoopback: options.allowLoopback ?? false });
  const deadline = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal === undefined ? deadline : AbortSignal.any([options.signal, deadline]);
  const maxRedirects = options.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
  let url = options.url;
  try {
    for (let hop = 0; hop <= maxRedirects; hop += 1) {
      const result = await fetchHop(url, options, policy, signal);
      if (result.document !== undefined) return result.document;
      if (result.redirect === undefined) break;
      url = result.redirect;
    }
  } catch (error) {
    throw mapError(error, options, deadline);
  }
  throw failure(options.param, `more than ${maxRedirects} redirects`);
}
