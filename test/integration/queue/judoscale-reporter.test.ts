import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createLogger } from '../../../src/platform/log/logger.js';
import { createRedis, type Redis } from '../../../src/platform/redis/index.js';
import { JudoscaleReporter } from '../../../src/queue/judoscale-reporter.js';
import { queuePrefix } from '../../../src/queue/queue-names.js';
import { testRedisUrl, uniqueName } from '../../setup/test-context.js';

const silent = createLogger('silent', new Writable({ write: (_c, _e, done) => done() }));
const prefix = uniqueName('judoscale');
const target = { url: testRedisUrl(), tlsRejectUnauthorized: true };

let server: Server;
let url: string;
const reports: Array<{ path: string; body: Record<string, unknown> }> = [];
let redis: Redis;
let images: Queue;

beforeAll(async () => {
  // A stand-in for Judoscale's report endpoint: it keeps what it is sent.
  server = createServer((req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString()));
    req.on('end', () => {
      reports.push({ path: req.url ?? '', body: JSON.parse(text) as Record<string, unknown> });
      res.writeHead(204).end();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/app-token`;
  redis = createRedis(target, 'judoscale-test');
  images = new Queue('images', { connection: redis, prefix: queuePrefix(prefix, 'images') });
});
afterAll(async () => {
  await images?.close();
  redis?.disconnect();
  server?.close();
});

it('reports each queue\'s depth, latency and busy jobs in Judoscale\'s format, under Farebox\'s queue prefix', async () => {
  await images.add('generate', { n: 1 }, { jobId: 'a', timestamp: Date.now() - 4_000 });
  await images.add('generate', { n: 2 }, { jobId: 'b' });
  const reporter = JudoscaleReporter.start({ url, container: 'worker.1' }, target, prefix, silent);
  expect(reporter).toBeDefined();
  await reporter?.report();
  await reporter?.stop();
  expect(reports).toHaveLength(1);
  const [report] = reports;
  expect(report?.path).toBe('/api/app-token/v3/reports');
  expect(report?.body.container).toBe('worker.1');
  const metrics = report?.body.metrics as Array<[number, number, string, string]>;
  const of = (identifier: string, queue: string) => metrics.find((m) => m[2] === identifier && m[3] === queue)?.[1];
  expect(of('qd', 'images')).toBe(2);
  expect(of('qt', 'images')).toBeGreaterThanOrEqual(4_000);
  expect(of('busy', 'images')).toBe(0);
  expect(of('qd', 'ocr')).toBe(0);
  expect(of('qt', 'ocr')).toBe(0);
});

it('is off unless JUDOSCALE_URL is set', () => {
  expect(JudoscaleReporter.start({ url: undefined, container: 'worker.1' }, target, prefix, silent)).toBeUndefined();
});
