import { createServer, type Server } from 'node:http';
import type Koa from 'koa';
import type { Deps } from '../deps.js';
import { answerClientErrors, EDGE_SERVER_OPTIONS } from './edge/client-errors.js';
import { shedLoad } from './edge/shed-load.js';
import type { GatewayState } from './state.js';

/** Longer than the idle timeouts of the load balancers in front (60 s on an ALB), so they close first. */
const KEEP_ALIVE_TIMEOUT_MS = 65_000;

/**
 * The web's HTTP server around the app (not listening yet): the edge's parser limits and its
 * answer to a malformed request, and load shedding in front of the app.
 */
export function createWebServer(deps: Pick<Deps, 'overload' | 'metrics' | 'log'>, app: Koa<GatewayState>): Server {
  const server = createServer(EDGE_SERVER_OPTIONS, shedLoad(deps.overload, deps.metrics, app.callback()));
  answerClientErrors(server, deps.log);
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  return server;
}
