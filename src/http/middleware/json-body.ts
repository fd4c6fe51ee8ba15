import bourne from '@hapi/bourne';
import coBody from 'co-body';
import type { Middleware } from 'koa';
import { malformedBody } from '../../platform/errors/index.js';
import type { GatewayState } from '../state.js';
import { bodyIs } from './body-type.js';
import { BODY_METHODS } from './require-content-type.js';
import { checkJsonDepth, checkJsonLimits, DEFAULT_JSON_LIMITS, type JsonLimits } from './json-limits.js';

/** Only a JSON object or array is a body (RFC 7159 whitespace may come first). */
const STRICT_START = /^[\x20\x09\x0a\x0d]*[[{]/;

/** Parses a body's text: `{}` when empty, an object or array otherwise, never `__proto__` keys. */
function parseBody(text: string): unknown {
  if (text === '') return {};
  if (!STRICT_START.test(text)) throw malformedBody(new SyntaxError('only an object or array is a body'));
  try {
    return bourne.parse(text, { protoAction: 'error' });
  } catch (err) {
    throw malformedBody(err);
  }
}

/** Bounds of the JSON body reader. */
export interface JsonBodyOptions {
  /** Most bytes of a body (after decompression); more is a 413. */
  limitBytes: number;
  limits?: JsonLimits;
}

/**
 * Reads a JSON body into `ctx.request.body` (co-body: size limit, charset and content
 * encoding), refusing excessive nesting on the text before parsing it and the other generic
 * limits right after, so no route sees a body past them. Read errors keep their status
 * (413 too large, 400 cut short, 415 unknown encoding); see classifyError.
 */
export function jsonBody(options: JsonBodyOptions): Middleware<GatewayState> {
  const limits = options.limits ?? DEFAULT_JSON_LIMITS;
  return async function jsonBodyMiddleware(ctx, next) {
    if (BODY_METHODS.has(ctx.method) && bodyIs(ctx, 'json')) {
      const text = await coBody.text(ctx, { limit: options.limitBytes, encoding: 'utf8' });
      checkJsonDepth(text, limits.maxDepth);
      const body = parseBody(text);
      checkJsonLimits(body, limits);
      ctx.request.body = body;
    }
    // Returned, not awaited: nothing follows, and a waiting frame would live as long as the response (a stream's too).
    return next();
  };
}
