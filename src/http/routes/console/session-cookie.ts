import type { ParameterizedContext } from 'koa';

/** Name of the console session cookie. */
export const SESSION_COOKIE = 'fbx_console';

/** The session id a request carries, if any. */
export function sessionIdOf(ctx: ParameterizedContext): string | undefined {
  return ctx.cookies.get(SESSION_COOKIE) || undefined;
}

/**
 * Sets the session cookie: HttpOnly (no script reads it), SameSite=Strict (no cross-site
 * request carries it), Path=/ and Secure when the request came over https (`ctx.secure`
 * follows X-Forwarded-Proto, as the app trusts its proxy).
 */
export function setSessionCookie(ctx: ParameterizedContext, id: string, expires: Date): void {
  ctx.cookies.set(SESSION_COOKIE, id, { httpOnly: true, sameSite: 'strict', path: '/', secure: ctx.secure, expires, overwrite: true });
}

/** Clears the session cookie. */
export function clearSessionCookie(ctx: ParameterizedContext): void {
  ctx.cookies.set(SESSION_COOKIE, '', { httpOnly: true, sameSite: 'strict', path: '/', secure: ctx.secure, expires: new Date(0), overwrite: true });
}
