import { createServer } from 'node:http';
import Koa from 'koa';
import { Pool } from 'undici';

/**
 * The floor of the benchmark: a bare Koa + undici pooled pass-through proxy, run as its own
 * process (`floor-proxy <port> <upstream origin> <upstream key>`, 127.0.0.1 only). It does
 * what any reverse proxy must do for `POST /v1/chat/completions` and `POST /v1/embeddings` (forward the body, relay the
 * status, content type and body as they come, stop the upstream when the client leaves) and
 * nothing the gateway adds (no auth, limits, holds, ledger, parsing or logging).
 */

const [portText, origin, upstreamKey] = process.argv.slice(2);
const port = Number(portText);
if (!Number.isInteger(port) || port <= 0 || !origin || !upstreamKey) {
  throw new Error('usage: floor-proxy <port> <upstream origin> <upstream key>');
}

/** The paths relayed (as they are) to the upstream. */
const RELAYED = new Set(['/v1/chat/completions', '/v1/embeddings']);

const pool = new Pool(origin, { keepAliveTimeout: 30_000, keepAliveMaxTimeout: 120_000 });
const app = new Koa();
app.silent = true;

app.use(async (ctx) => {
  if (ctx.method === 'GET' && ctx.path === '/health') {
    ctx.body = 'ok';
    return;
  }
  if (ctx.method !== 'POST' || !RELAYED.has(ctx.path)) {
    ctx.status = 404;
    return;
  }
  const abort = new AbortController();
  ctx.res.once('close', () => {
    if (!ctx.res.writableFinished) abort.abort();
  });
  const upstream = await pool.request({
    path: ctx.path,
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${upstreamKey}` },
    body: ctx.req,
    signal: abort.signal,
  });
  ctx.status = upstream.statusCode;
  const type = upstream.headers['content-type'];
  if (typeof type === 'string') ctx.type = type;
  ctx.body = upstream.body;
});

const server = createServer(app.callback());
server.keepAliveTimeout = 65_000;
// A backlog as deep as the web's: with Node's 511, a burst of new connections from a relay
// under load has some dropped, and each waits out a 1 s SYN retry that no relay caused.
server.listen({ port, host: '127.0.0.1', backlog: 4_096 });

const stop = (): void => {
  server.close(() => void pool.close().finally(() => process.exit(0)));
  server.closeAllConnections();
  setTimeout(() => process.exit(0), 2_000).unref();
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
