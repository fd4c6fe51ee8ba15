import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import fc from 'fast-check';
import Koa from 'koa';
import { describe, expect, it } from 'vitest';
import { bodyIs, type BodyType } from '../../../src/http/middleware/body-type.js';

const app = new Koa();

/** A Koa context for a request with exactly these headers (no body is read). */
function contextWith(headers: Record<string, string>): Koa.Context {
  const req = new IncomingMessage(new Socket());
  req.headers = headers;
  return app.createContext(req, new ServerResponse(req));
}

const contentType = fc.oneof(
  fc.constantFrom('application/json', 'Application/JSON; charset=utf-8', 'application/vnd.api+json', 'text/json', 'application/json-patch+json', 'multipart/form-data; boundary=x', 'MULTIPART/FORM-DATA', 'text/plain', 'application/x-www-form-urlencoded', '', ';', 'json', 'application/json;;', ' application/json '),
  fc.string({ maxLength: 40 }),
);
const bodyHeaders = fc.record(
  { 'content-length': fc.oneof(fc.constantFrom('0', '12', '', ' 7 ', 'abc', '1e3'), fc.string({ maxLength: 5 })), 'transfer-encoding': fc.constantFrom('chunked', '') },
  { requiredKeys: [] },
);

describe('bodyIs', () => {
  it("answers as Koa's ctx.is does, on the first ask and when remembered", () => {
    fc.assert(
      fc.property(contentType, bodyHeaders, fc.constantFrom<BodyType>('json', 'multipart/form-data'), (type, body, asked) => {
        const headers: Record<string, string> = { ...body };
        if (type !== '') headers['content-type'] = type;
        const expected = Boolean(contextWith(headers).is(asked));
        expect(bodyIs(contextWith(headers), asked)).toBe(expected);
        expect(bodyIs(contextWith(headers), asked)).toBe(expected);
      }),
      { numRuns: 2_000 },
    );
  });

  it('tells a JSON body from none of the same type', () => {
    expect(bodyIs(contextWith({ 'content-type': 'application/json', 'content-length': '2' }), 'json')).toBe(true);
    expect(bodyIs(contextWith({ 'content-type': 'application/json' }), 'json')).toBe(false);
    expect(bodyIs(contextWith({ 'content-type': 'text/plain', 'content-length': '2' }), 'json')).toBe(false);
  });
});
