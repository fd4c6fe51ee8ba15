import type { Server, ServerOptions } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { errorHeaders, GatewayError, serializeError } from '../../platform/errors/index.js';
import { newId } from '../../platform/util/index.js';
import { REQUEST_ID_ALIAS, REQUEST_ID_HEADER } from '../middleware/request-id.js';
import { EXPOSED_HEADERS } from '../middleware/cors-headers.js';

/** Largest request head (request line plus headers) the parser accepts; larger → 400. */
export const MAX_HEADER_BYTES = 16 * 1024;

/**
 * Options for the web's HTTP server: an explicit header limit, and no parser-level refusal
 * of a missing `Host` (Node would answer it with a bare 400; the app answers it instead).
 */
export const EDGE_SERVER_OPTIONS: ServerOptions = { maxHeaderSize: MAX_HEADER_BYTES, requireHostHeader: false };

/** What Node's parser reported, as a client may read it (never the raw bytes it choked on). */
function describe(code: string | undefined): string {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return `Request headers are too large (limit ${MAX_HEADER_BYTES} bytes).`;
    case 'HPE_INVALID_METHOD':
      return 'Unknown HTTP method.';
    case 'HPE_INVALID_VERSION':
      return 'Unsupported HTTP version.';
    case 'HPE_INVALID_HEADER_TOKEN':
    case 'HPE_INVALID_CHUNK_SIZE':
    case 'HPE_UNEXPECTED_CONTENT_LENGTH':
    case 'HPE_INVALID_CONTENT_LENGTH':
    case 'HPE_INVALID_TRANSFER_ENCODING':
      return 'Malformed request framing or header.';
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return 'The request was not received in time.';
    default:
      return 'Malformed HTTP request.';
  }
}

/** The full raw response for a request the parser refused: one error shape, one request id. */
export function clientErrorResponse(code: string | undefined): string {
  const err = new GatewayError('invalid_request', describe(code));
  const body = JSON.stringify(serializeError(err));
  const id = newId('req');
  const headers: Record<string, string> = {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(body)),
    [REQUEST_ID_HEADER]: id,
    [REQUEST_ID_ALIAS]: id,
    'Access-Control-Allow-Origin': '*',
    'Access-Control-Expose-Headers': EXPOSED_HEADERS.join(','),
    ...errorHeaders(err),
    Connection: 'close',
  };
  const head = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join('');
  return `HTTP/1.1 ${err.status} Bad Request\r\n${head}\r\n${body}`;
}

/** A response already begun on the socket, which a late parser error must not interleave with. */
function responseStarted(socket: Duplex): boolean {
  const current: unknown = (socket as { _httpMessage?: unknown })._httpMessage;
  return typeof current === 'object' && current !== null && (current as { headersSent?: unknown }).headersSent === true;
}

/**
 * Answers requests Node's HTTP parser rejects (control bytes in headers, oversized headers,
 * unknown methods or versions, Content-Length with Transfer-Encoding, broken chunking) in
 * the gateway's error shape with a request id, instead of Node's bare text, then closes.
 */
export function answerClientErrors(server: Server, log: Logger): void {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    const code = typeof err.code === 'string' ? err.code : undefined;
    if (code === 'ECONNRESET' || !socket.writable || responseStarted(socket)) {
      socket.destroy();
      return;
    }
    log.debug({ code }, 'request refused by the HTTP parser');
    socket.end(clientErrorResponse(code));
  });
}
