import type { IncomingMessage, OutgoingHttpHeaders, RequestListener, ServerResponse } from 'node:http';
import { errorHeaders, GatewayError, serializeError } from '../../platform/errors/index.js';
import type { OverloadGauge } from '../../platform/runtime/index.js';
import { newId } from '../../platform/util/index.js';
import type { Metrics } from '../../metrics/index.js';
import { REQUEST_ID_ALIAS, REQUEST_ID_HEADER } from '../middleware/request-id.js';
import { EXPOSED_HEADERS } from '../middleware/cors-headers.js';

/** The routes of new work: what a request there costs grows with load; everything else is cheap or already running. */
const NEW_WORK: ReadonlySet<string> = new Set([
  '/v1/chat/completions',
  '/v1/responses',
  '/v1/messages',
  '/v1/embeddings',
  '/v1/images/generations',
  '/v1/images/edits',
  '/v1/ocr',
]);

/** Seconds a shed client is asked to wait: the overload passes within a few turns of the loop, or the client's backoff grows. */
const RETRY_AFTER_SECONDS = 1;

/** Whether a request starts new work (a POST to one of its routes, whatever its query). */
function isNewWork(req: IncomingMessage): boolean {
  if (req.method !== 'POST' || req.url === undefined) return false;
  const query = req.url.indexOf('?');
  return NEW_WORK.has(query === -1 ? req.url : req.url.slice(0, query));
}

/** The shed answer, built once: the error table's body and headers, and CORS as every answer has it. */
function shedAnswer(): { body: string; headers: OutgoingHttpHeaders } {
  const err = new GatewayError('overloaded', 'The gateway is overloaded; retry shortly.', { retryAfterSeconds: RETRY_AFTER_SECONDS });
  const body = JSON.stringify(serializeError(err));
  const headers = {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(body)),
    'Access-Control-Allow-Origin': '*',
    'Access-Control-Expose-Headers': EXPOSED_HEADERS.join(','),
    ...errorHeaders(err),
  };
  return { body, headers };
}

/**
 * Sheds new work while the web is overloaded (see {@link OverloadGauge}), in front of the app:
 * a request to a route of new work is answered `503 overloaded` with `Retry-After` from a
 * ready-made answer, before the app sees it (no body read, no middleware, no access line), so
 * a refusal costs the web almost nothing and the requests already admitted keep their latency.
 * Under overload the queue is in the sockets the web has not read yet: a refusal that cost as
 * much as the app's error path took the core from the work it was refusing for. A request whose
 * client already left is dropped here too: nobody would receive its answer, and its upstream
 * call would be paid for by nobody. Health, metrics and reads are never shed, and a running
 * stream is never cut (it counts as work in flight until its response closes).
 */
export function shedLoad(gauge: OverloadGauge, metrics: Pick<Metrics, 'shed'>, app: RequestListener): RequestListener {
  const answer = shedAnswer();
  return function shedLoadListener(req: IncomingMessage, res: ServerResponse): void {
    if (!isNewWork(req)) return void app(req, res);
    if (req.socket.destroyed || !req.socket.writable) {
      metrics.shed('client_left');
      res.destroy();
      return;
    }
    const reason = gauge.enter();
    if (reason !== undefined) {
      metrics.shed(reason);
      const id = newId('req');
      res.writeHead(503, { ...answer.headers, [REQUEST_ID_HEADER]: id, [REQUEST_ID_ALIAS]: id });
      res.end(answer.body);
      return;
    }
    res.once('close', () => gauge.leave());
    app(req, res);
  };
}
