import type { Context } from 'koa';

/** The media types a route's body may be checked against. */
export type BodyType = 'json' | 'multipart/form-data';

/** Distinct Content-Type values remembered; clients send very few, so a full table is rare. */
const MAX_REMEMBERED = 1_000;
const remembered = new Map<string, boolean>();

/**
 * Whether a request carries a body by type-is's rule (which `ctx.is` applies): a
 * Transfer-Encoding, or a Content-Length that reads as a number.
 */
function carriesBody(headers: Context['req']['headers']): boolean {
  return headers['transfer-encoding'] !== undefined || !Number.isNaN(Number(headers['content-length']));
}

/**
 * `Boolean(ctx.is(type))`, remembered per Content-Type value: with a body, type-is's answer
 * depends on that header alone, and parsing it (and looking the type up) on every request,
 * twice for a JSON body, was a measurable share of a chat's CPU.
 */
export function bodyIs(ctx: Context, type: BodyType): boolean {
  if (!carriesBody(ctx.req.headers)) return false;
  const key = `${type}\u0000${ctx.req.headers['content-type'] ?? ''}`;
  let known = remembered.get(key);
  if (known === undefined) {
    known = Boolean(ctx.is(type));
    if (remembered.size >= MAX_REMEMBERED) remembered.clear();
    remembered.set(key, known);
  }
  return known;
}
