import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { HttpDrain } from '../../../../src/platform/runtime/http-drain.js';
import { waitFor } from '../../../helpers/wait-for.js';

/** A server with one endpoint per behaviour: a stream that never ends, a slow answer, a quick one. */
async function start(): Promise<{ url: string; drain: HttpDrain }> {
  const server = createServer((req, res) => {
    if (req.url === '/stream') {
      // Set the way Koa sets headers (setHeader), which is what the drain reads back.
      res.setHeader('content-type', 'text/event-stream');
      res.writeHead(200);
      res.write('data: {}\n\n');
      return;
    }
    if (req.url === '/slow') return void setTimeout(() => res.end('late'), 300);
    res.end('ok');
  });
  const drain = new HttpDrain(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, drain };
}

const settle = (p: Promise<unknown>): Promise<string> => p.then(() => 'answered', () => 'cut');

describe('HttpDrain', () => {
  it('lets responses that finish in time finish, and counts what it cut by kind', async () => {
    const { url, drain } = await start();
    const stream = await fetch(`${url}/stream`);
    const streamBody = settle(stream.text());
    const hung = settle(fetch(`${url}/slow`).then((r) => r.text()));
    await waitFor('both requests to reach the server', () => drain.inFlight === 2);
    const result = await drain.drain(1_000);
    // The slow answer finished inside the budget; the endless stream did not.
    expect(result).toEqual({ streamsCut: 1, requestsCut: 0 });
    expect(await hung).toBe('answered');
    expect(await streamBody).toBe('cut');
  });

  it('cuts a response that outlasts the budget and counts it as a request', async () => {
    const { url, drain } = await start();
    const slow = settle(fetch(`${url}/slow`).then((r) => r.text()));
    await waitFor('the request to reach the server', () => drain.inFlight === 1);
    expect(await drain.drain(50)).toEqual({ streamsCut: 0, requestsCut: 1 });
    expect(await slow).toBe('cut');
  });

  it('returns at once when nothing is in flight, and refuses new connections', async () => {
    const { url, drain } = await start();
    expect(await (await fetch(`${url}/quick`)).text()).toBe('ok');
    expect(await drain.drain(10_000)).toEqual({ streamsCut: 0, requestsCut: 0 });
    expect(await settle(fetch(`${url}/quick`))).toBe('cut');
  });
});
