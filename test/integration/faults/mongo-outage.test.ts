import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonResponse } from '../../helpers/admin-client.js';
import { spawnWeb, type WebProcess } from '../../helpers/spawn-web.js';
import { startTestGateway, testEnv, type TestGateway } from '../../helpers/test-gateway.js';
import { chat, fundedKey, streamChat, type StreamResult } from '../chat/chat-client.js';
import { expectExactMoney, type Reported } from './money-invariants.js';
import { privateMongod, type PrivateMongod } from './private-mongod.js';

let mongod: PrivateMongod;
let spoolDir: string;
let gw: TestGateway;
let web: WebProcess;
let env: Record<string, string>;

beforeAll(async () => {
  mongod = await privateMongod();
  spoolDir = await mkdtemp(path.join(tmpdir(), 'fbx-spool-'));
  env = testEnv({ LOG_LEVEL: 'error', MONGODB_URI: mongod.url, CHARGE_SPOOL_DIR: spoolDir });
  // The in-process gateway prepares the database and reads the ledger; the real `web` process
  // serves the requests that run through the outage.
  gw = await startTestGateway({ env });
  web = await spawnWeb(env);
}, 180_000);
afterAll(async () => {
  await web?.stop();
  await gw?.close();
  await mongod?.stop();
  if (spoolDir) await rm(spoolDir, { recursive: true, force: true });
}, 60_000);

const nano = (usd: number): bigint => BigInt(Math.round(usd * 1e9));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const ask = (raw: string, content: string) => chat(web.url, raw, { model: 'local/echo', max_tokens: 64, messages: [{ role: 'user', content }] });

function reportedStream(r: StreamResult): Reported {
  return { requestId: r.headers.get('x-service-request-id') ?? '', cost: nano(r.events.at(-1)?.usage?.cost as number) };
}

function reportedChat(r: JsonResponse): Reported {
  return { requestId: r.headers.get('x-service-request-id') ?? '', cost: nano(r.body.usage.cost as number) };
}

/** Polls until `probe` answers 200 (or gives up after `tries`); returns the answers seen. */
async function until200(probe: () => Promise<JsonResponse>, tries: number): Promise<JsonResponse[]> {
  const seen: JsonResponse[] = [];
  for (let i = 0; i < tries; i++) {
    const res = await probe();
    seen.push(res);
    if (res.status === 200) break;
    await sleep(250);
  }
  return seen;
}

describe('kill -9 of MongoDB during streams and non-streamed requests', () => {
  it('delivers and bills every started request once, refuses new paid work with 503, and recovers', async () => {
    const key = await fundedKey(gw.url, 5, { limits: { rpm: 10_000 } });
    expect((await ask(key.raw, 'warm up')).status).toBe(200);
    const streams = Array.from({ length: 6 }, (_, i) =>
      streamChat(web.url, key.raw, { model: 'local/echo', max_tokens: 200, messages: [{ role: 'user', content: `stream ${i} [[local:chunks=16]] [[local:slow=200]]` }] }),
    );
    const plain = Array.from({ length: 4 }, (_, i) => ask(key.raw, `plain ${i} [[local:chunks=10]] [[local:slow=300]]`));
    await sleep(700);
    const killedAt = Date.now();
    await mongod.kill();

    // New paid work is refused with 503 + Retry-After once the outage is seen (a request that
    // slips in first is admitted and its charge spooled). Each probe's latency is reported,
    // not asserted: timing belongs in the bench.
    const refusals: Array<JsonResponse & { tookMs: number }> = [];
    for (let i = 0; i < 8; i++) {
      const started = Date.now();
      const res = await ask(key.raw, 'new during outage');
      refusals.push(Object.assign(res, { tookMs: Date.now() - started }));
      await sleep(250);
    }
    for (const r of refusals) expect([200, 503]).toContain(r.status);
    expect(refusals.at(-1)?.status).toBe(503);
    const refused = refusals.filter((r) => r.status === 503);
    expect(refused.length).toBeGreaterThan(0);
    for (const r of refused) {
      expect(r.body.error.code).toBe('service_unavailable');
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }

    // Free models need no charge: a key and account already seen keep working.
    const free = await chat(web.url, key.raw, { model: 'local/echo-free', max_tokens: 16, messages: [{ role: 'user', content: 'free during outage' }] });
    expect(free.status, JSON.stringify(free.body) + web.output()).toBe(200);

    const delivered = await Promise.all(streams);
    const answered = await Promise.all(plain);
    for (const s of delivered) {
      expect(s.status).toBe(200);
      expect(s.done).toBe(true);
      expect(s.events.at(-1)?.usage?.cost, s.text.slice(-300)).toBeGreaterThan(0);
    }
    for (const r of answered) expect(r.status, JSON.stringify(r.body)).toBe(200);

    const restartAt = Date.now();
    await mongod.start();
    const startedMs = Date.now() - restartAt;
    const after = await until200(() => ask(key.raw, 'after recovery'), 120);
    expect(after.at(-1)?.status).toBe(200);
    const recoveredMs = Date.now() - restartAt;

    const reported = [...delivered.map(reportedStream), ...answered.map(reportedChat), ...refusals.filter((r) => r.status === 200).map(reportedChat), reportedChat(after.at(-1)!)];
    // Spooled charges commit once MongoDB is back: wait for all of them.
    for (let i = 0; i < 100; i++) {
      const n = await gw.deps.c.ledger.countDocuments({ account_id: key.accountId, kind: 'charge' });
      if (n >= reported.length + 1) break;
      await sleep(200);
    }
    // Unreported: the warm-up request, and the free request if free requests are recorded.
    const figures = await expectExactMoney(gw.deps, key.accountId, reported, { unreported: 2 });
    expect(figures.charges.size - reported.length).toBeGreaterThanOrEqual(1);
    const latencies = refused.map((r) => r.tookMs);
    console.info(
      `[fault] mongod kill -9: ${delivered.length} streams + ${answered.length} requests in flight all billed once (charges lost 0), ` +
        `503 latencies ${latencies.join('/')} ms, outage ${restartAt - killedAt} ms, mongod restart ${startedMs} ms, first paid 200 ${recoveredMs - startedMs} ms after it was up`,
    );
  }, 240_000);
});

describe('kill -9 of a web process holding spooled charges', () => {
  it('commits its charges through another process once MongoDB is back', async () => {
    const key = await fundedKey(gw.url, 5, { limits: { rpm: 10_000 } });
    const doomed = await spawnWeb(env);
    try {
      const streams = Array.from({ length: 3 }, (_, i) =>
        streamChat(doomed.url, key.raw, { model: 'local/echo', max_tokens: 100, messages: [{ role: 'user', content: `spooled ${i} [[local:chunks=10]] [[local:slow=200]]` }] }),
      );
      await sleep(600);
      await mongod.kill();
      const delivered = await Promise.all(streams);
      for (const s of delivered) expect(s.events.at(-1)?.usage?.cost, s.text.slice(-300)).toBeGreaterThan(0);
      // The charges are only in the dead process's spool now.
      await doomed.kill();
      expect((await readdir(path.join(spoolDir, env.MONGODB_DB!))).length).toBeGreaterThan(0);
      await mongod.start();
      const reported = delivered.map(reportedStream);
      for (let i = 0; i < 150; i++) {
        const n = await gw.deps.c.ledger.countDocuments({ account_id: key.accountId, kind: 'charge' });
        if (n >= reported.length) break;
        await sleep(200);
      }
      await expectExactMoney(gw.deps, key.accountId, reported);
    } finally {
      await doomed.kill();
    }
  }, 180_000);
});
