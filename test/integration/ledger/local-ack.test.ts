import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chat, fundedKey } from '../chat/chat-client.js';
import { expectExactMoney, type Reported } from '../faults/money-invariants.js';
import { spawnWeb, type WebProcess } from '../../helpers/spawn-web.js';
import { startTestGateway, testEnv, type TestGateway } from '../../helpers/test-gateway.js';
import { waitFor } from '../../helpers/wait-for.js';

/** Nano-USD from a `usage.cost` in dollars. */
const nano = (usd: unknown) => BigInt(Math.round(Number(usd) * 1e9));

let spoolDir: string;
let env: Record<string, string>;
let gw: TestGateway;

beforeAll(async () => {
  // A spool folder of their own, shared by the processes of this file, as on one machine.
  spoolDir = await mkdtemp(path.join(tmpdir(), 'fbx-local-ack-'));
  env = testEnv({ LEDGER_ACK: 'local', CHARGE_SPOOL_DIR: spoolDir, LOG_LEVEL: 'warn' });
  gw = await startTestGateway({ env });
});
afterAll(async () => {
  await gw?.close();
  await rm(spoolDir, { recursive: true, force: true });
});

/** Every spooled line of the folder's spool files. */
async function spooledIds(): Promise<string[]> {
  const dir = path.join(spoolDir, env.MONGODB_DB ?? '');
  const files = (await readdir(dir)).filter((f) => f.endsWith('.jsonl') && f.startsWith('spool-'));
  const texts = await Promise.all(files.map((f) => readFile(path.join(dir, f), 'utf8')));
  return texts.flatMap((t) => t.split('\n').filter(Boolean).map((l) => String((JSON.parse(l) as { requestId: string }).requestId)));
}

describe('LEDGER_ACK=local', () => {
  it('acknowledges a charge once it is in the spool file, then commits it to MongoDB exactly once', async () => {
    const key = await fundedKey(gw.url, 1);
    const at = new Date();
    const request = { requestId: 'req_local_ack_1', accountId: key.accountId, keyId: key.keyId, model: 'local/echo', cost: 1_234n, at };
    const [first, again] = await Promise.all([gw.deps.ledger.charge(request), gw.deps.ledger.charge(request)]);
    // Acknowledged from the spool: the chain link is not known yet, and the line is on disk.
    expect(first.hash).toBeUndefined();
    expect(again.cost).toBe(1_234n);
    expect(await spooledIds()).toContain('req_local_ack_1');

    await gw.deps.ledger.settled();
    const entries = await gw.deps.c.ledger.find({ _id: 'req_local_ack_1' }).toArray();
    expect(entries.map((e) => [e.cost, e.charged])).toEqual([[1_234n, 1_234n]]);
    expect(gw.deps.ledger.pending()).toBe(0);
    await expectExactMoney(gw.deps, key.accountId, [{ requestId: 'req_local_ack_1', cost: 1_234n }]);
  });

  it('loses no acknowledged charge when a web is killed with SIGKILL under load: a live process adopts its spool', async () => {
    const web: WebProcess = await spawnWeb(env);
    const key = await fundedKey(gw.url, 5);
    const reported: Reported[] = [];
    let killed = false;
    const client = async (): Promise<void> => {
      while (!killed) {
        const res = await chat(web.url, key.raw, { model: 'local/echo', messages: [{ role: 'user', content: 'count the cents' }] }).catch(() => undefined);
        if (res?.status === 200) reported.push({ requestId: String(res.headers.get('x-service-request-id')), cost: nano(res.body.usage.cost) });
      }
    };
    const clients = Array.from({ length: 8 }, client);
    const started = Date.now();
    while (reported.length < 60 && Date.now() - started < 30_000) await new Promise((r) => setTimeout(r, 20));
    await web.kill();
    killed = true;
    await Promise.all(clients);

    expect(reported.length).toBeGreaterThanOrEqual(60);
    const inMongo = await gw.deps.c.ledger.countDocuments({ _id: { $in: reported.map((r) => r.requestId) } });
    console.info(`local-ack kill: ${reported.length} answered, ${reported.length - inMongo} only in the killed web's spool at the kill`);
    // The killed web's spool lock lapses, the test gateway adopts the file and drains it. The
    // reported charges may all be in MongoDB while the adopted lines (some committed already by
    // the killed web) are still being drained, so the money is checked again once they are.
    await expectExactMoney(gw.deps, key.accountId, reported, { unreported: 8 });
    await waitFor('the adopted spool to drain', () => gw.deps.ledger.pending() === 0);
    const figures = await expectExactMoney(gw.deps, key.accountId, reported, { unreported: 8 });
    expect(figures.charges.size).toBeGreaterThanOrEqual(reported.length);
  }, 90_000);
});
