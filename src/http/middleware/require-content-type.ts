import type { Middleware } from 'koa';
import { GatewayError } from '../../platform/errors/index.js';
import type { GatewayState } from '../state.js';
import { bodyIs } from './body-type.js';

/** Which body each path takes: multipart for the listed paths, JSON everywhere else. */
export interface ContentTypeRules {
  multipartPaths: ReadonlySet<string>;
}

/** Methods whose body routes read; bodies on other methods are ignored, as HTTP allows. */
export const BODY_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH']);

function hasBody(ctx: { get(name: string): string }): boolean {
  const length = ctx.get('content-length');
  return ctx.get('transfer-encoding') !== '' || (length !== '' && length !== '0');
}

/**
 * Refuses a body of the wrong type with 400 before any parser waits on it: multipart paths
 * need `multipart/form-data`, every other path with a body needs JSON. Checked on the headers
 * alone, so a mismatch can never leave a handler waiting for a body already consumed.
 */
export function requireContentType(rules: ContentTypeRules): Middleware<GatewayState> {
  return async function requireContentTypeMiddleware(ctx, next) {
    if (rules.multipartPaths.has(ctx.path) && ctx.method === 'POST') {
      if (!bodyIs(ctx, 'multipart/form-data')) {
        throw new GatewayError('invalid_request', 'Expected a multipart/form-data body.');
      }
    } else if (BODY_METHODS.has(ctx.method) && hasBody(ctx) && !bodyIs(ctx, 'json')) {
      throw new GatewayError('invalid_request', 'Expected Content-Type: application/json.');
    }
    // Returned, not awaited: nothing follows, and a waiting frame would live as long as the response (a stream's too).
    return next();
  };
}
