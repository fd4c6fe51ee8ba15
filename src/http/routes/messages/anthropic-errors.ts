import type { Middleware } from 'koa';
import type { Logger } from 'pino';
import { classifyError, errorHeaders, serializeError } from '../../../platform/errors/index.js';
import type { GatewayState } from '../../state.js';

/**
 * Answers errors of the Messages route in a body both kinds of client read: Anthropic's SDK
 * looks for `{type: "error", error: {type, message}}`, OpenAI-style clients for
 * `{error: {message, type, code, param}}`. The body is the one serializer's, plus the
 * top-level `type`; the error types of the table are Anthropic's names where they overlap.
 * The request id also goes out as `request-id`, the header Anthropic's SDK reports.
 */
export function anthropicErrors(log: Logger): Middleware<GatewayState> {
  return async function anthropicErrorsMiddleware(ctx, next) {
    ctx.set('request-id', ctx.state.requestId);
    try {
      await next();
    } catch (thrown) {
      // Once a stream started, the stream reports its own errors and the boundary logs.
      if (ctx.headerSent || !ctx.writable) throw thrown;
      const err = classifyError(thrown);
      if (err.status >= 500) log.error({ err: err.cause ?? err, request_id: ctx.state.requestId, code: err.code }, err.message);
      ctx.status = err.status;
      ctx.set(errorHeaders(err));
      ctx.body = { type: 'error', ...serializeError(err) };
    }
  };
}

/**
 * Lets Anthropic's SDK authenticate as it does (`x-api-key`) by presenting that key as the
 * bearer token the gateway's key check reads; an explicit `Authorization` header wins.
 */
export function apiKeyHeader(): Middleware<GatewayState> {
  return async function apiKeyHeaderMiddleware(ctx, next) {
    const apiKey = ctx.get('x-api-key');
    if (apiKey !== '' && ctx.get('authorization') === '') ctx.request.headers.authorization = `Bearer ${apiKey}`;
    await next();
  };
}
