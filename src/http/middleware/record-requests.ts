import type { ServerResponse } from 'node:http';
import type { GatewayContext } from '../state.js';
import { END_USER_HEADER, endUserOf, type RequestRecorder } from '../../ledger/index.js';
import { reportedStatus } from './client-closed.js';

/** The inference endpoints whose requests are recorded (POST only). */
const RECORDED_PATHS: ReadonlySet<string> = new Set([
  '/v1/chat/completions',
  '/v1/responses',
  '/v1/messages',
  '/v1/images/generations',
  '/v1/images/edits',
  '/v1/ocr',
  '/v1/embeddings',
]);

/** The recorded endpoint a request is for, as the router would match it (case, trailing slash). */
function endpointOf(ctx: GatewayContext): string | undefined {
  if (ctx.method !== 'POST') return undefined;
  const path = ctx.path.toLowerCase().replace(/\/+$/, '');
  return RECORDED_PATHS.has(path) ? path : undefined;
}

/** Runs `done` once the response has finished or closed (streams end after the middleware). */
function afterResponse(res: ServerResponse, done: () => void): void {
  if (res.writableFinished || res.destroyed) {
    done();
    return;
  }
  const once = (): void => {
    res.off('finish', once);
    res.off('close', once);
    done();
  };
  res.on('finish', once);
  res.on('close', once);
}

function field(body: unknown, name: string): unknown {
  return typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[name] : undefined;
}

/** Closes a request's record once its response has gone out; see {@link openRecord}. */
export type RecordCloser = () => void;

/**
 * Opens the record of a request on an inference endpoint, or returns undefined for any other
 * request. The edge middleware calls the closer after the rest of the app ran: it sits outside
 * the error boundary, so the record gets the status and error body actually sent. The draft is
 * filled by admission (model, provider, charge) while the request runs.
 */
export function openRecord(recorder: RequestRecorder, ctx: GatewayContext): RecordCloser | undefined {
  const endpoint = endpointOf(ctx);
  if (endpoint === undefined) return undefined;
  const draft = recorder.open(ctx.state.requestId, endpoint);
  draft.endUserSource = () => endUserOf(endpoint, ctx.get(END_USER_HEADER) || undefined, ctx.request.body);
  return () =>
    afterResponse(ctx.res, () => {
      const answered = ctx.res.headersSent;
      const requested = ctx.request.body;
      const model = field(requested, 'model');
      const code = field(field(ctx.body, 'error'), 'code');
      recorder.finish(draft, {
        key: ctx.state.key,
        status: reportedStatus(ctx),
        errorCode: answered && typeof code === 'string' ? code : undefined,
        requestedModel: typeof model === 'string' ? model : undefined,
        requestedStream: field(requested, 'stream') === true,
      });
    });
}
