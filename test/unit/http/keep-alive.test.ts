import { once } from 'node:events';
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { KeepAliveClock, KeptAnswer, Pulse, STATUS_TRAILER } from '../../../src/http/middleware/kept-answer.js';

const SETTINGS = { earlyCommitMs: 40, heartbeatMs: 30 };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What a client read of one answer: status, headers, every body chunk as it came, trailers. */
interface Read {
  status: number;
  headers: IncomingMessage['headers'];
  chunks: string[];
  trailers: IncomingMessage['trailers'];
}

/** Serves one request with `handle` on a real HTTP server and reads the answer as a client. */
async function serveOnce(handle: (res: ServerResponse) => Promise<void>): Promise<Read> {
  const server = createServer((_req, res) => void handle(res));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  try {
    const res = await new Promise<IncomingMessage>((resolve, reject) => request({ port, host: '127.0.0.1', method: 'POST' }, resolve).on('error', reject).end());
    const chunks: string[] = [];
    for await (const chunk of res) chunks.push(String(chunk));
    return { status: res.statusCode ?? 0, headers: res.headers, chunks, trailers: res.trailers };
  } finally {
    server.close();
  }
}

describe('Pulse', () => {
  it('calls for a beat only after a whole interval without a write', () => {
    const pulse = new Pulse();
    const start = performance.now();
    expect(pulse.due(start + 10, 30)).toBe(false);
    expect(pulse.due(start + 31, 30)).toBe(true);
    pulse.beat();
    expect(pulse.due(start + 70, 30)).toBe(false);
    expect(pulse.due(start + 95, 30)).toBe(false);
    expect(pulse.due(start + 101, 30)).toBe(true);
  });
});

describe('KeptAnswer', () => {
  it('commits a slow answer as 200 JSON, keeps it alive with whitespace, and writes the failure with its status', async () => {
    const clock = new KeepAliveClock(SETTINGS);
    const read = await serveOnce(async (res) => {
      const ctx: { res: ServerResponse; respond?: boolean } = { res };
      const kept = new KeptAnswer(ctx, SETTINGS);
      clock.add(kept);
      await sleep(200);
      clock.delete(kept);
      expect(kept.committed).toBe(true);
      expect(ctx.respond).toBe(false);
      await kept.finish(502, { error: { message: 'upstream failed', code: 'upstream_error' } });
    });
    expect(read.status).toBe(200);
    expect(read.headers['content-type']).toBe('application/json; charset=utf-8');
    const body = read.chunks.join('');
    expect(body.trimStart().startsWith('{')).toBe(true);
    // The commit's space and at least one heartbeat came before the body.
    expect(body.length - body.trimStart().length).toBeGreaterThanOrEqual(2);
    expect(JSON.parse(body)).toEqual({ error: { message: 'upstream failed', code: 'upstream_error', status: 502 } });
    expect(read.trailers[STATUS_TRAILER.toLowerCase()]).toBe('502');
  });

  it('leaves a fast answer alone', async () => {
    const clock = new KeepAliveClock(SETTINGS);
    const read = await serveOnce(async (res) => {
      const kept = new KeptAnswer({ res }, SETTINGS);
      clock.add(kept);
      await sleep(5);
      clock.delete(kept);
      expect(kept.committed).toBe(false);
      res.writeHead(201, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
    expect(read.status).toBe(201);
    expect(read.chunks.join('')).toBe('{"ok":true}');
  });

  it('hands a stream\'s early commit to the stream', async () => {
    const clock = new KeepAliveClock(SETTINGS);
    let committed = 0;
    await serveOnce(async (res) => {
      const kept = new KeptAnswer({ res }, SETTINGS);
      kept.streamWith(() => committed++);
      clock.add(kept);
      await sleep(150);
      clock.delete(kept);
      expect(kept.committed).toBe(false);
      res.end();
    });
    expect(committed).toBe(1);
  });
});
