import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { namedFrame, SSE_DONE, SseWriter, sseFrame } from '../../../src/http/sse/sse-writer.js';

describe('SSE framing', () => {
  it('frames one JSON payload per event and ends with [DONE]', () => {
    expect(sseFrame('{"a":1}')).toBe('data: {"a":1}\n\n');
    expect(SSE_DONE).toBe('data: [DONE]\n\n');
    expect(namedFrame('message_stop', { type: 'message_stop' })).toBe('event: message_stop\ndata: {"type":"message_stop"}\n\n');
  });

  it('writes headers, events and [DONE] to a real response', async () => {
    const server = createServer((_req, res) => {
      const writer = new SseWriter(res);
      writer.open(200, { 'X-Test': 'yes' });
      void (async () => {
        for (let i = 0; i < 3; i += 1) await writer.write(sseFrame(JSON.stringify({ i, text: 'x'.repeat(100_000) })));
        await writer.end(SSE_DONE);
      })();
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
      expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
      expect(res.headers.get('cache-control')).toBe('no-cache');
      expect(res.headers.get('x-test')).toBe('yes');
      const events = (await res.text()).split('\n\n').filter(Boolean);
      expect(events).toHaveLength(4);
      expect(events.slice(0, 3).map((e) => (JSON.parse(e.slice('data: '.length)) as { i: number }).i)).toEqual([0, 1, 2]);
      expect(events[3]).toBe('data: [DONE]');
    } finally {
      server.close();
    }
  });

  it('reports closed and ignores writes once the client left', async () => {
    let writer: SseWriter | undefined;
    const closed = new Promise<void>((resolve) => {
      const server = createServer((_req, res) => {
        writer = new SseWriter(res);
        writer.open();
        res.on('close', () => {
          server.close();
          resolve();
        });
      });
      server.listen(0, '127.0.0.1', () => {
        const controller = new AbortController();
        void fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, { signal: controller.signal })
          .then(() => controller.abort())
          .catch(() => undefined);
      });
    });
    await closed;
    expect(writer?.closed).toBe(true);
    await expect(writer?.write(sseFrame('{"late":true}'))).resolves.toBeUndefined();
    await expect(writer?.end(SSE_DONE)).resolves.toBeUndefined();
  });
});
