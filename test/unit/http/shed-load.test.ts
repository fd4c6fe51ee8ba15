import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { shedLoad } from '../../../src/http/edge/shed-load.js';
import { Metrics } from '../../../src/metrics/index.js';
import { OverloadGauge } from '../../../src/platform/runtime/index.js';

const servers: Server[] = [];
const gauges: OverloadGauge[] = [];
const metricsMade: Metrics[] = [];
afterEach(async () => {
  for (const g of gauges.splice(0)) g.stop();
  for (const m of metricsMade.splice(0)) m.eventLoop.stop();
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

/**
 * A web whose requests wait `queuedMs` before they reach the shedder (as they do behind a busy
 * event loop), then count as work if they get through.
 */
async function web(queuedMs: number): Promise<{ url: string; worked: string[]; registry: Metrics['registry'] }> {
  const metrics = new Metrics();
  metricsMade.push(metrics);
  const gauge = new OverloadGauge({ maxEventLoopDelayMs: 0, maxInFlight: 0, maxEventLoopBusy: 0 });
  gauges.push(gauge);
  const worked: string[] = [];
  const shedding = shedLoad(gauge, metrics, (req, res) => {
    worked.push(req.url ?? '');
    res.setHeader('content-type', 'application/json');
    res.end('{"ok":true}');
  });
  const server = createServer((req, res) => void setTimeout(() => shedding(req, res), queuedMs));
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, worked, registry: metrics.registry };
}

describe('shedLoad', () => {
  it('answers new work 503 overloaded from its ready answer while the web is full, and lets the rest through', async () => {
    const metrics = new Metrics();
    metricsMade.push(metrics);
    const gauge = new OverloadGauge({ maxEventLoopDelayMs: 0, maxInFlight: 1, maxEventLoopBusy: 0 });
    gauges.push(gauge);
    const held: Array<() => void> = [];
    const server = createServer(shedLoad(gauge, metrics, (req, res) => held.push(() => res.end(req.url))));
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const first = fetch(`${url}/v1/chat/completions?x=1`, { method: 'POST', body: '{}' });
    await vi.waitFor(() => expect(held).toHaveLength(1));
    const shed = await fetch(`${url}/v1/embeddings`, { method: 'POST', body: '{}' });
    expect(shed.status).toBe(503);
    expect(shed.headers.get('retry-after')).toBe('1');
    expect(shed.headers.get('x-request-id')).toMatch(/^req_/);
    expect(await shed.json()).toMatchObject({ error: { code: 'overloaded', type: 'api_error' } });
    // Reads are never shed, and each shed answer names a request of its own.
    const read = fetch(`${url}/v1/models`);
    await vi.waitFor(() => expect(held).toHaveLength(2));
    for (const done of held) done();
    expect([await (await first).text(), await (await read).text()]).toEqual(['/v1/chat/completions?x=1', '/v1/models']);
    // Its place is given back when its response closes.
    await vi.waitFor(() => expect(gauge.running).toBe(0));
    expect(await metrics.registry.getSingleMetricAsString('farebox_requests_shed_total')).toContain('reason="in_flight"} 1');
  });


  it('does not start the work of a request whose client left before the web got to it', async () => {
    const { url, worked, registry } = await web(150);
    await new Promise<void>((resolve) => {
      const req = request(`${url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' } });
      req.on('error', () => resolve());
      req.end('{}');
      // Gone while the request waits its turn.
      setTimeout(() => {
        req.destroy();
        resolve();
      }, 40);
    });
    await new Promise((r) => setTimeout(r, 250));
    expect(worked).toEqual([]);
    expect(await registry.getSingleMetricAsString('farebox_requests_shed_total')).toContain('reason="client_left"} 1');
    // A client that stays gets its answer; routes outside new work are never counted.
    expect((await fetch(`${url}/v1/chat/completions`, { method: 'POST', body: '{}' })).status).toBe(200);
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    expect(worked).toEqual(['/v1/chat/completions', '/healthz']);
  });
});
