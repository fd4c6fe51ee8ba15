import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { errorBoundary } from '../../../src/http/middleware/error-boundary.js';
import type { GatewayState } from '../../../src/http/state.js';
import { chargesUnavailable } from '../../../src/ledger/spooling-ledger.js';
import { GatewayError } from '../../../src/platform/errors/index.js';

interface Line {
  level: number;
  msg: string;
  err?: { stack?: string };
  cause?: string;
}

let close: (() => void) | undefined;
afterEach(() => close?.());

/** Serves one route that throws `thrown`, logging into the returned lines. */
async function failing(thrown: () => unknown): Promise<{ url: string; lines: Line[] }> {
  const lines: Line[] = [];
  const log = pino({ level: 'info' }, { write: (chunk: string) => void lines.push(JSON.parse(chunk) as Line) });
  const app = new Koa<GatewayState>();
  app.use(errorBoundary(log, { drainBytes: 1_024 }));
  app.use(() => {
    throw thrown();
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  close = () => server.close();
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, lines };
}

describe('the error boundary’s log line', () => {
  it('is a warning without a stack for a refusal with Retry-After, naming its cause', async () => {
    const store = new Error('connection 3 to 127.0.0.1:27017 timed out');
    const { url, lines } = await failing(() => new GatewayError('service_unavailable', 'A backing service is unavailable; retry shortly.', { cause: store, retryAfterSeconds: 1 }));
    const res = await fetch(url);
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('1');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 40, cause: store.message });
    expect(JSON.stringify(lines[0])).not.toContain('at ');
  });

  it('is a warning for billing that is briefly unavailable', async () => {
    const { url, lines } = await failing(() => chargesUnavailable());
    expect((await fetch(url)).status).toBe(503);
    expect(lines.map((l) => [l.level, l.msg])).toEqual([[40, 'Billing is briefly unavailable; retry shortly.']]);
  });

  it('is an error with the stack for a fault of the gateway', async () => {
    const { url, lines } = await failing(() => new TypeError('x is undefined'));
    const res = await fetch(url);
    expect(res.status).toBe(500);
    expect((await res.json()) as unknown).toMatchObject({ error: { type: 'api_error', code: 'internal_error' } });
    expect(lines).toHaveLength(1);
    expect(lines[0]?.level).toBe(50);
    expect(lines[0]?.err?.stack).toContain('TypeError: x is undefined');
  });
});
