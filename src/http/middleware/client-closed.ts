import type { Context } from 'koa';

/** Status of a request whose client left before any answer went out (nginx's convention). */
const CLIENT_CLOSED = 499;

/** True when the client left before any answer went out: nothing will reach it. */
export function clientLeft(ctx: Pick<Context, 'writable' | 'res'>): boolean {
  return !ctx.res.headersSent && !ctx.writable;
}

/**
 * The status a request is reported with (access log, metrics, record, trace): its own, or 499
 * when the client left before any answer went out. Koa's default 404 would otherwise stand
 * for an answer nobody received.
 */
export function reportedStatus(ctx: Pick<Context, 'status' | 'writable' | 'res'>): number {
  return clientLeft(ctx) ? CLIENT_CLOSED : ctx.status;
}
