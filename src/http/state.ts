import type { ParameterizedContext } from 'koa';
import type { ConsoleSessionLoader } from '../console/index.js';
import type { KeyDoc } from '../accounts/index.js';
import type { DeferredRate } from '../admission/index.js';
import type { KeepAliveClock, KeptAnswer } from './middleware/kept-answer.js';

/** Per-request state set by middleware. */
export interface GatewayState {
  requestId: string;
  /** The authenticated key (set by `authenticate`). */
  key?: KeyDoc;
  /** The console session of a cookie-carrying request without an Authorization header. */
  consoleSession?: ConsoleSessionLoader;
  /** The request's RPM check while admission has yet to run it (set by `deferredRateLimit`). */
  rate?: DeferredRate;
  /** The process's keep-alive clock (set by `keepAlive`): streams' heartbeats and early commits. */
  keepAlive?: KeepAliveClock;
  /** This request's early commit, when it may be slow (set by `keepAlive` on POSTs). */
  kept?: KeptAnswer;
}

/** The Koa context every gateway handler receives. */
export type GatewayContext = ParameterizedContext<GatewayState>;

/** The authenticated key; throws if a route forgot its auth middleware. */
export function requireKey(ctx: GatewayContext): KeyDoc {
  const key = ctx.state.key;
  if (!key) throw new Error('route reached without authentication');
  return key;
}

declare module 'koa' {
  interface Request {
    /** The parsed JSON body (see jsonBody); undefined when the request had none. */
    body?: unknown;
  }
}
