import type { Context } from 'koa';

/** Status of a request whose client left before any answer went out (nginx's convention). */
export const CLIENT_CLOSED = 499;

/**
 * The status a request is reported with (access log, metrics, record, trace): its own once an
 * answer went out or can still go out, else 499. Koa's default 404 would otherwise stand for
 * an answer nobody received.
 */
export function reportedStatus(ctx: Pick<Context, 'status' | 'writable' | 'res'>): number {
  return ctx.res.headersSent || ctx.writable ? ctx.status : CLIENT_CLOSED;
}

/** True when the client left before any answer went out: nothing will reach it. */
export function clientLeft(ctx: Pick<Context, 'writable' | 'res'>): boolean {
  return !ctx.res.headersSent && !ctx.writable;
}
