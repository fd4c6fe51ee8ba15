import { withTraceHeaders } from '../../platform/tracing/index.js';
import { Agent, type Dispatcher } from 'undici';
import { GatewayError } from '../../platform/errors/index.js';
import { BoundedMemo } from '../../platform/util/index.js';
import { toTransportError, type AbortContext } from './transport-errors.js';
import { upstreamStatusError } from './upstream-errors.js';

/** Time limits of one upstream call, in milliseconds. */
export interface UpstreamTimeouts {
  /** TCP/TLS connect. */
  connectMs: number;
  /** From sending the request to receiving the response headers. */
  firstByteMs: number;
  /** Longest silence between two body chunks. */
  idleMs: number;
  /** Whole call, body included; absent = no overall limit (streams can be long). */
  totalMs?: number;
}

/** Body types an upstream request can carry. */
export type UpstreamRequestBody = string | Buffer | Uint8Array | FormData;

/** One upstream request. */
export interface UpstreamRequestOptions {
  url: string;
  method?: 'GET' | 'POST' | 'PUT' | 'DELETE';
  headers?: Readonly<Record<string, string>>;
  body?: UpstreamRequestBody;
  signal: AbortSignal;
  /** Cap on bytes read by `text()`/`bytes()`/`json()`; default 128 MiB. */
  maxBodyBytes?: number;
}

/** A 2xx upstream response whose body has not been read yet. */
export interface UpstreamResponse {
  status: number;
  /** Lower-case header names; repeated headers joined with ", ". */
  headers: Readonly<Record<string, string | undefined>>;
  /** Body chunks; read failures surface as GatewayError. Iterate at most once. */
  body: AsyncIterable<Uint8Array>;
  /** Reads the whole body as UTF-8. */
  text(): Promise<string>;
  /** Reads the whole body as bytes. */
  bytes(): Promise<Buffer>;
  /** Drops the body so the connection can be reused. */
  discard(): Promise<void>;
}

/** A 2xx JSON response. */
export interface UpstreamJsonResponse {
  status: number;
  headers: Readonly<Record<string, string | undefined>>;
  body: unknown;
}

/** The pooled HTTP client adapters call upstreams with. */
export interface UpstreamClient {
  /** Sends a request; non-2xx answers and transport failures reject with GatewayError. */
  request(opts: UpstreamRequestOptions): Promise<UpstreamResponse>;
  /** Sends a request and parses a JSON answer; garbage becomes `upstream_error`. */
  json(opts: UpstreamRequestOptions): Promise<UpstreamJsonResponse>;
}

/** Longest error body read to build an error message. */
const MAX_ERROR_BODY_BYTES = 64 * 1024;
const DEFAULT_MAX_BODY_BYTES = 128 * 1024 * 1024;

// Keep-alive pools are per process and keyed by connect timeout, the only per-agent setting;
// in practice every client shares one agent.
const sharedAgents = new Map<number, Agent>();

function sharedAgent(connectMs: number): Agent {
  let agent = sharedAgents.get(connectMs);
  if (agent === undefined) {
    agent = new Agent({ connect: { timeout: connectMs }, keepAliveTimeout: 30_000, keepAliveMaxTimeout: 120_000 });
    sharedAgents.set(connectMs, agent);
  }
  return agent;
}

/** Closes the process-wide connection pools (graceful shutdown). */
export async function closeUpstreamAgents(): Promise<void> {
  const agents = [...sharedAgents.values()];
  sharedAgents.clear();
  await Promise.all(agents.map((agent) => agent.close()));
}

function normalizeHeaders(raw: Record<string, string | string[] | undefined>): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(raw)) {
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

async function readAll(body: AsyncIterable<Uint8Array>, maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.byteLength;
    if (size > maxBytes) throw new GatewayError('upstream_error', `The upstream response exceeded ${maxBytes} bytes`);
    chunks.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
  }
  return Buffer.concat(chunks);
}

/**
 * Per-call state: the abort signal and the total deadline. Without a total deadline (the
 * usual case: the request's own bound is the caller's) the caller's signal is used as it is,
 * so a call adds no AbortController, no combined signal and no timer.
 */
class CallScope implements AbortContext {
  readonly callerSignal: AbortSignal;
  readonly totalMs: number | undefined;
  readonly signal: AbortSignal;
  totalTimedOut = false;
  private readonly timer: NodeJS.Timeout | undefined;

  constructor(callerSignal: AbortSignal, totalMs: number | undefined) {
    this.callerSignal = callerSignal;
    this.totalMs = totalMs;
    if (totalMs === undefined) {
      this.signal = callerSignal;
      return;
    }
    const controller = new AbortController();
    this.signal = AbortSignal.any([callerSignal, controller.signal]);
    this.timer = setTimeout(() => {
      this.totalTimedOut = true;
      controller.abort(new GatewayError('upstream_timeout', `The upstream provider did not finish within ${totalMs} ms`));
    }, totalMs);
    this.timer.unref();
  }

  end(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
  }

  fail(err: unknown): GatewayError {
    this.end();
    return toTransportError(err, this);
  }
}

async function* mappedBody(raw: Dispatcher.ResponseData['body'], scope: CallScope): AsyncGenerator<Uint8Array> {
  try {
    for await (const chunk of raw) yield chunk as Uint8Array;
  } catch (err) {
    throw scope.fail(err);
  } finally {
    scope.end();
    // A consumer that stops early must not leave the socket half-read.
    if (!raw.destroyed) raw.destroy();
  }
}

async function send(opts: UpstreamRequestOptions, timeouts: UpstreamTimeouts, dispatcher: Dispatcher): Promise<UpstreamResponse> {
  const scope = new CallScope(opts.signal, timeouts.totalMs);
  let raw: Dispatcher.ResponseData;
  try {
    if (scope.signal.aborted) throw scope.signal.reason;
    raw = await dispatcher.request({
      ...splitUrls.get(opts.url),
      method: opts.method ?? 'POST',
      headers: withTraceHeaders(opts.headers),
      body: opts.body as Dispatcher.DispatchOptions['body'],
      signal: scope.signal,
      headersTimeout: timeouts.firstByteMs,
      bodyTimeout: timeouts.idleMs,
    });
  } catch (err) {
    throw scope.fail(err);
  }
  const headers = normalizeHeaders(raw.headers);
  const body = mappedBody(raw.body, scope);
  if (raw.statusCode < 200 || raw.statusCode > 299) {
    const text = await readAll(body, MAX_ERROR_BODY_BYTES).then(
      (buf) => buf.toString('utf8'),
      () => '',
    );
    throw upstreamStatusError(raw.statusCode, headers, text);
  }
  const maxBytes = opts.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  return {
    status: raw.statusCode,
    headers,
    body,
    text: async () => (await readAll(body, maxBytes)).toString('utf8'),
    bytes: () => readAll(body, maxBytes),
    discard: async () => {
      scope.end();
      await raw.body.dump().catch(() => undefined);
    },
  };
}

/** Upstream URLs split before: a provider calls the same few for every request. */
const splitUrls = new BoundedMemo(splitUrl, 1_000);

function splitUrl(url: string): { origin: string; path: string } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch (err) {
    throw new GatewayError('upstream_error', 'The upstream URL is invalid', { cause: err });
  }
  return { origin: parsed.origin, path: `${parsed.pathname}${parsed.search}` };
}

/**
 * Creates a client over the process-wide keep-alive pool. Connect, first-byte and idle
 * timeouts become `upstream_timeout`; resets, refusals and garbage become `upstream_error`;
 * non-2xx answers are mapped by {@link upstreamStatusError}.
 * @param dispatcher only for tests that need their own pool.
 */
export function createUpstreamClient(timeouts: UpstreamTimeouts, dispatcher?: Dispatcher): UpstreamClient {
  const pool = (): Dispatcher => dispatcher ?? sharedAgent(timeouts.connectMs);
  return {
    request: (opts) => send(opts, timeouts, pool()),
    json: async (opts) => {
      const response = await send(opts, timeouts, pool());
      const text = await response.text();
      try {
        return { status: response.status, headers: response.headers, body: JSON.parse(text) as unknown };
      } catch (err) {
        throw new GatewayError('upstream_error', 'The upstream provider answered with invalid JSON', { cause: err });
      }
    },
  };
}
