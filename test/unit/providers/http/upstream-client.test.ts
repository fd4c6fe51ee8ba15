import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GatewayError } from '../../../../src/platform/errors/gateway-error.js';
import { createUpstreamClient } from '../../../../src/providers/http/upstream-client.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;
const routes = new Map<string, Handler>();
let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    const handler = routes.get(req.url ?? '');
    if (handler === undefined) {
      res.writeHead(404).end();
      return;
    }
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

routes.set('/echo', (req, res) => {
  let body = '';
  req.on('data', (c: Buffer) => (body += c.toString()));
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'application/json', 'x-test': 'yes' });
    res.end(JSON.stringify({ method: req.method, auth: req.headers.authorization, body }));
  });
});
routes.set('/garbage', (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"nope'));
routes.set('/429', (_req, res) =>
  res.writeHead(429, { 'retry-after': '9' }).end(JSON.stringify({ error: { message: 'quota' } })),
);
routes.set('/500', (_req, res) => res.writeHead(500).end('kaput'));
routes.set('/silent', () => undefined);
routes.set('/stall', (_req, res) => {
  res.writeHead(200, { 'content-type': 'text/plain' });
  res.write('first');
});
routes.set('/reset', (req) => req.socket.destroy());
routes.set('/drip', (_req, res) => {
  res.writeHead(200);
  const timer = setInterval(() => res.write('x'), 5);
  res.on('close', () => clearInterval(timer));
});

const client = createUpstreamClient({ connectMs: 2000, firstByteMs: 150, idleMs: 150 });
const signal = (): AbortSignal => new AbortController().signal;

async function failure(promise: Promise<unknown>): Promise<GatewayError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof GatewayError) return err;
    throw new Error(`not a GatewayError: ${String(err)}`);
  }
  throw new Error('expected a failure');
}

async function drain(body: AsyncIterable<Uint8Array>): Promise<string> {
  let out = '';
  for await (const chunk of body) out += Buffer.from(chunk).toString();
  return out;
}

describe('createUpstreamClient', () => {
  it('sends method, headers and body and parses JSON', async () => {
    const res = await client.json({
      url: `${base}/echo`,
      headers: { authorization: 'Bearer t', 'content-type': 'application/json' },
      body: '{"a":1}',
      signal: signal(),
    });
    expect(res.status).toBe(200);
    expect(res.headers['x-test']).toBe('yes');
    expect(res.body).toEqual({ method: 'POST', auth: 'Bearer t', body: '{"a":1}' });
  });

  it('maps a garbage JSON body to upstream_error', async () => {
    expect((await failure(client.json({ url: `${base}/garbage`, signal: signal() }))).code).toBe('upstream_error');
  });

  it('maps 429 to rate_limited with the upstream Retry-After', async () => {
    const err = await failure(client.request({ url: `${base}/429`, signal: signal() }));
    expect(err.code).toBe('rate_limited');
    expect(err.retryAfterSeconds).toBe(9);
  });

  it('maps 500 to upstream_error', async () => {
    expect((await failure(client.request({ url: `${base}/500`, signal: signal() }))).code).toBe('upstream_error');
  });

  it('maps a missing first byte to upstream_timeout', async () => {
    expect((await failure(client.request({ url: `${base}/silent`, signal: signal() }))).code).toBe('upstream_timeout');
  });

  it('maps a stalled body to upstream_timeout while reading', async () => {
    const res = await client.request({ url: `${base}/stall`, signal: signal() });
    expect((await failure(drain(res.body))).code).toBe('upstream_timeout');
  });

  it('maps a reset connection to upstream_error', async () => {
    expect((await failure(client.request({ url: `${base}/reset`, signal: signal() }))).code).toBe('upstream_error');
  });

  it('maps a refused connection to upstream_error', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const err = await failure(client.request({ url: `http://127.0.0.1:${port}/`, signal: signal() }));
    expect(err.code).toBe('upstream_error');
    expect(err.message).toContain('ECONNREFUSED');
  });

  it('enforces the total deadline even while chunks keep coming', async () => {
    const bounded = createUpstreamClient({ connectMs: 2000, firstByteMs: 1000, idleMs: 1000, totalMs: 100 });
    const res = await bounded.request({ url: `${base}/drip`, signal: signal() });
    expect((await failure(drain(res.body))).code).toBe('upstream_timeout');
  });

  it("stops when the caller's signal aborts mid-body", async () => {
    const controller = new AbortController();
    const res = await client.request({ url: `${base}/drip`, signal: controller.signal });
    const iterator = res.body[Symbol.asyncIterator]();
    await iterator.next();
    controller.abort(new GatewayError('upstream_error', 'client went away'));
    const err = await failure((async () => { for (;;) if ((await iterator.next()).done) return; })());
    expect(err.message).toBe('client went away');
  });

  it('rejects at once when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    expect((await failure(client.request({ url: `${base}/echo`, signal: controller.signal }))).code).toBe('upstream_error');
  });
});
