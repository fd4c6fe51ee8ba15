import type { Middleware } from 'koa';
import { toUsdNumber } from '../../billing/index.js';
import { type DraftLookup, type RecordDraft, usageOf } from '../../ledger/index.js';
import {
  capturingContent,
  inOpenRemoteSpan,
  inputContent,
  outputContent,
  type SpanAttributes,
  tracingOn,
} from '../../platform/tracing/index.js';
import type { GatewayContext, GatewayState } from '../state.js';
import { reportedStatus } from './client-closed.js';

/** GenAI operation names of the inference endpoints (OpenTelemetry semantic conventions). */
const OPERATIONS: Readonly<Record<string, string>> = {
  '/v1/chat/completions': 'chat',
  '/v1/responses': 'chat',
  '/v1/messages': 'chat',
  '/v1/embeddings': 'embeddings',
  '/v1/images/generations': 'generate_content',
  '/v1/images/edits': 'generate_content',
  '/v1/ocr': 'generate_content',
};

function field(value: unknown, name: string): unknown {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[name] : undefined;
}

/** Finish reasons of a JSON answer (Chat Completions choices, Messages `stop_reason`); none for streams. */
function finishReasons(body: unknown): string[] | undefined {
  const choices = field(body, 'choices');
  if (Array.isArray(choices)) return choices.map((c) => field(c, 'finish_reason')).filter((r): r is string => typeof r === 'string');
  const stop = field(body, 'stop_reason');
  return typeof stop === 'string' ? [stop] : undefined;
}

/** What the finished request tells its span: models, token counts, cost, status. Never content. */
function outcome(ctx: GatewayContext, draft: RecordDraft | undefined): SpanAttributes {
  const usage = draft?.units === undefined ? {} : usageOf(draft.units);
  const requested = field(ctx.request.body, 'model');
  const code = field(field(ctx.body, 'error'), 'code');
  return {
    'gen_ai.request.model': typeof requested === 'string' ? requested.slice(0, 200) : undefined,
    'gen_ai.response.model': draft?.model,
    'gen_ai.provider.name': draft?.provider,
    'gen_ai.usage.input_tokens': usage.input_tokens,
    'gen_ai.usage.output_tokens': usage.output_tokens,
    'gen_ai.response.finish_reasons': finishReasons(ctx.body),
    'farebox.cost_usd': toUsdNumber(draft?.cost ?? 0n),
    'http.response.status_code': reportedStatus(ctx),
    'error.type': ctx.status >= 400 && typeof code === 'string' ? code : undefined,
  };
}

/** Prompt and completion content, only when the operator turned capture on; else nothing. */
function content(ctx: GatewayContext): SpanAttributes {
  if (!capturingContent()) return {};
  // A streamed body is a stream object, not the answer: only JSON answers have output to show.
  const answer = typeof ctx.body === 'object' && ctx.body !== null && typeof (ctx.body as { pipe?: unknown }).pipe !== 'function' ? ctx.body : undefined;
  return { ...inputContent(ctx.request.body), ...outputContent(answer) };
}

/**
 * A server span per inference request, child of the client's `traceparent` when it sends one;
 * it ends when the response has gone out (streams included) with the GenAI attributes of the
 * request's record, and the content only when `OTEL_CAPTURE_CONTENT` is on. Does nothing
 * unless tracing is on.
 */
export function traceRequests(drafts: DraftLookup): Middleware<GatewayState> {
  return async function traceRequestsMiddleware(ctx, next) {
    const operation = ctx.method === 'POST' && tracingOn() ? OPERATIONS[ctx.path.toLowerCase().replace(/\/+$/, '')] : undefined;
    if (operation === undefined) return next();
    // Opened by the record middleware just outside this one; kept after the record is written.
    const draft = drafts.draft(ctx.state.requestId);
    const attributes = { 'gen_ai.operation.name': operation, 'http.request.method': 'POST', 'url.path': ctx.path, 'farebox.request_id': ctx.state.requestId };
    await inOpenRemoteSpan(operation, ctx.headers, attributes, async (span) => {
      try {
        await next();
      } finally {
        const end = (): void => {
          const attrs = { ...outcome(ctx, draft), ...content(ctx) };
          span?.set(attrs);
          if (typeof attrs['gen_ai.request.model'] === 'string') span?.rename(`${operation} ${attrs['gen_ai.request.model']}`);
          span?.end();
        };
        if (ctx.res.writableFinished || ctx.res.destroyed) end();
        else ctx.res.once('close', end);
      }
    });
  };
}
