import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import Koa from 'koa';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorBoundary } from '../../../src/http/middleware/error-boundary.js';
import { jsonBody } from '../../../src/http/middleware/json-body.js';
import type { GatewayState } from '../../../src/http/state.js';

let url: string;
let close: () => void;

beforeAll(async () => {
  const app = new Koa<GatewayState>();
  app.use(errorBoundary(pino({ level: 'silent' }), { drainBytes: 1 << 20 }));
  app.use(jsonBody({ limitBytes: 1_000_000 }));
  // Echoes what the reader made of the body.
  app.use((ctx) => {
    ctx.body = { body: ctx.request.body ?? null };
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  close = () => server.close();
});
afterAll(() => close?.());

async function post(body: string | Buffer, headers: Record<string, string> = {}): Promise<{ status: number; json: { body?: unknown; error?: { code: string; message: string } } }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
  return { status: res.status, json: (await res.json()) as never };
}

describe('the JSON body reader', () => {
  it('hands routes the parsed object, gzip-encoded too', async () => {
    expect((await post('{"a":[1,{"b":"[["}]}')).json.body).toEqual({ a: [1, { b: '[[' }] });
    expect((await post(gzipSync('{"z":true}'), { 'content-encoding': 'gzip' })).json.body).toEqual({ z: true });
  });

  it('reads an empty body as an empty object', async () => {
    expect(await post('')).toEqual({ status: 200, json: { body: {} } });
  });

  it('refuses what is not an object or array, broken JSON and __proto__ keys with 400', async () => {
    for (const text of ['"text"', '42', '{"a":', '{"__proto__":{"admin":true}}']) {
      const { status, json } = await post(text);
      expect([text, status, json.error?.code]).toEqual([text, 400, 'invalid_request']);
    }
  });

  it('refuses 200,000 nested arrays by their depth, and a body past the limit with 413', async () => {
    const deep = await post(`${'['.repeat(200_000)}${']'.repeat(200_000)}`);
    expect(deep.status).toBe(400);
    expect(deep.json.error?.message).toMatch(/deeper than 64/);
    expect((await post(`{"a":"${'x'.repeat(1_000_001)}"}`)).status).toBe(413);
  });
});
