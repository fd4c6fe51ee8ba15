import { once } from 'node:events';
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Heroku's router limits, scaled for a test: a first byte within `firstByteMs`, then one every `idleMs`. */
export interface RouterRules {
  readonly firstByteMs: number;
  readonly idleMs: number;
}

/** What the router did with one request. */
export interface RoutedRequest {
  readonly path: string;
  /** `H12` (no first byte in time), `H15` (idle too long) or undefined when it passed. */
  readonly error?: 'H12' | 'H15';
  /** Milliseconds from the request to the router's verdict or the answer's end. */
  readonly ms: number;
}

/** A running router in front of one backend. */
export interface HerokuRouter {
  readonly url: string;
  readonly routed: RoutedRequest[];
  close(): Promise<void>;
}

/**
 * A reverse proxy that applies Heroku's router rules (devcenter "Request timeout"): the backend
 * must send its first byte (its status line and headers count) within `firstByteMs`, or the
 * client gets the router's own `503` (H12) and the backend's connection is dropped; after that
 * every silence longer than `idleMs` ends the connection (H15). Everything else passes through.
 */
export async function startHerokuRouter(backend: string, rules: RouterRules): Promise<HerokuRouter> {
  const routed: RoutedRequest[] = [];
  const target = new URL(backend);
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const started = performance.now();
    const done = (error?: 'H12' | 'H15'): void => {
      routed.push({ path: req.url ?? '', ms: Math.round(performance.now() - started), ...(error ? { error } : {}) });
    };
    const upstream = request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers });
    let idle: NodeJS.Timeout | undefined;
    const firstByte = setTimeout(() => {
      upstream.destroy();
      done('H12');
      res.writeHead(503, { 'content-type': 'text/html', 'x-heroku-error': 'H12' }).end('<html>Application Error (H12 Request timeout)</html>');
    }, rules.firstByteMs);
    const armIdle = (): void => {
      clearTimeout(idle);
      idle = setTimeout(() => {
        upstream.destroy();
        done('H15');
        res.destroy();
      }, rules.idleMs);
    };
    upstream.on('response', (answer) => {
      clearTimeout(firstByte);
      armIdle();
      res.writeHead(answer.statusCode ?? 502, answer.rawHeaders);
      res.flushHeaders();
      answer.on('data', (chunk: Buffer) => {
        armIdle();
        res.write(chunk);
      });
      answer.on('end', () => {
        clearTimeout(idle);
        res.addTrailers(answer.rawTrailers.length > 0 ? pairs(answer.rawTrailers) : {});
        res.end();
        done();
      });
    });
    upstream.on('error', () => {
      clearTimeout(firstByte);
      clearTimeout(idle);
      if (!res.headersSent) res.writeHead(503).end();
      else res.destroy();
    });
    res.on('close', () => {
      clearTimeout(firstByte);
      clearTimeout(idle);
      upstream.destroy();
    });
    req.pipe(upstream);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    routed,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Raw header pairs as an object. */
function pairs(raw: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i + 1 < raw.length; i += 2) out[raw[i] as string] = raw[i + 1] as string;
  return out;
}
