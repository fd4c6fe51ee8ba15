import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectWellFormed, probeHealth, rawExchange, startEdgeWeb, type EdgeWeb } from '../../fuzz/edge-web.js';

let edge: EdgeWeb;
beforeAll(async () => {
  edge = await startEdgeWeb();
}, 180_000);
afterAll(async () => edge?.close());

const host = 'Host: 127.0.0.1\r\n';

/** Requests Node's HTTP parser refuses before any middleware runs. */
const PARSER_CASES: ReadonlyArray<[string, string]> = [
  ['NUL byte in a header value', `GET /v1/models HTTP/1.1\r\n${host}X-Bad: a\u0000b\r\n\r\n`],
  ['control byte in a header value', `GET /v1/models HTTP/1.1\r\n${host}X-Bad: a\u0001b\r\n\r\n`],
  ['control byte in a header name', `GET /v1/models HTTP/1.1\r\n${host}X-B\u0002ad: x\r\n\r\n`],
  ['a 20 KB header', `GET /v1/models HTTP/1.1\r\n${host}X-Big: ${'a'.repeat(20 * 1024)}\r\n\r\n`],
  ['a 60 KB header', `GET /v1/models HTTP/1.1\r\n${host}X-Big: ${'a'.repeat(60 * 1024)}\r\n\r\n`],
  ['many headers totalling 40 KB', `GET /v1/models HTTP/1.1\r\n${host}${Array.from({ length: 400 }, (_, i) => `X-H${i}: ${'b'.repeat(90)}\r\n`).join('')}\r\n`],
  ['an unknown method', `FROB /v1/models HTTP/1.1\r\n${host}\r\n`],
  ['HTTP/9.9', `GET /v1/models HTTP/9.9\r\n${host}\r\n`],
  ['Content-Length with Transfer-Encoding', `POST /v1/chat/completions HTTP/1.1\r\n${host}Content-Type: application/json\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`],
  ['a broken chunk size', `POST /v1/chat/completions HTTP/1.1\r\n${host}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\n{}\r\n0\r\n\r\n`],
  ['two Content-Length values', `POST /v1/chat/completions HTTP/1.1\r\n${host}Content-Type: application/json\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}`],
  ['a garbage request line', `\u0001\u0002\u0003 nonsense\r\n\r\n`],
];

describe('requests the HTTP parser refuses', () => {
  it.each(PARSER_CASES)('%s → 400 in the error shape with a request id', async (_name, request) => {
    const res = await rawExchange(edge.url, request);
    expect(res.status, res.raw.slice(0, 300)).toBe(400);
    expectWellFormed(res.status, res.headers, res.body, _name);
    expect(res.body).toMatchObject({ error: { code: 'invalid_request', type: 'invalid_request_error', param: null } });
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-expose-headers')).toMatch(/x-request-id/i);
    expect((await probeHealth(edge.url)).status).toBe(200);
  });

  it('a request without Host is answered by the app, not refused bare', async () => {
    const res = await rawExchange(edge.url, 'GET /v1/does-not-exist HTTP/1.1\r\nConnection: close\r\n\r\n');
    expect(res.status).toBe(404);
    expectWellFormed(res.status, res.headers, res.body, 'no host');
  });

  it('headers under the limit still pass', async () => {
    const res = await rawExchange(edge.url, `GET /v1/models HTTP/1.1\r\n${host}X-Fine: ${'a'.repeat(8 * 1024)}\r\nConnection: close\r\n\r\n`);
    expect(res.status).toBe(200);
  });
});
