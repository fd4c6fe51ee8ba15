import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keySlot } from '../../../src/platform/redis/key-slot.js';
import { adminClient, call } from '../../helpers/admin-client.js';
import { startMongoReplicaSet, type MongoReplicaSet } from '../../helpers/mongo-replica-set.js';
import { startRedisCluster, type LocalRedisCluster } from '../../helpers/redis-cluster.js';
import { spawnWeb, type WebProcess } from '../../helpers/spawn-web.js';
import { startTestGateway, TEST_ADMIN_TOKEN, testEnv, type TestGateway } from '../../helpers/test-gateway.js';
import { expectExactMoney } from '../../integration/faults/money-invariants.js';
import { spawnWorker, type WorkerProcess } from '../images/spawn-worker.js';
import { probeRecovery, runLoad, type LoadKey, type Outcome } from './scale-load.js';

const ACCOUNTS = 6;
const DAY_CAP_USD = 2;
/** Longest the webs get, after the load, to bring every shown charge into the ledger. */
const DRAIN_WAIT_MS = 90_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let cluster: LocalRedisCluster;
let rs: MongoReplicaSet;
let setup: TestGateway;
let spoolDir: string;
const webs: WebProcess[] = [];
const workers: WorkerProcess[] = [];

beforeAll(async () => {
  [cluster, rs] = await Promise.all([startRedisCluster(), startMongoReplicaSet()]);
  spoolDir = await mkdtemp(path.join(tmpdir(), 'fbx-scale-spool-'));
  const env = testEnv({ REDIS_URL: '', REDIS_CLUSTER_NODES: cluster.seeds, MONGODB_URI: rs.uri, LOG_LEVEL: 'warn', JOB_TIMEOUT_MS: '60000', CHARGE_SPOOL_DIR: spoolDir });
  // The in-process gateway plays the release step (indexes, catalog) and the operator.
  setup = await startTestGateway({ env });
  webs.push(...(await Promise.all([spawnWeb(env), spawnWeb(env)])));
  workers.push(...(await Promise.all([spawnWorker(env), spawnWorker(env)])));
}, 180_000);
afterAll(async () => {
  await Promise.all([...webs.map((w) => w.stop()), ...workers.map((w) => w.stop())]);
  await setup?.close();
  await Promise.all([cluster?.stop(), rs?.stop()]);
  if (spoolDir) await rm(spoolDir, { recursive: true, force: true });
});

/** Asks a cluster node something, with a short-lived connection. */
async function onNode<T>(port: number, use: (node: Redis) => Promise<T>): Promise<T> {
  const node = new Redis(port, '127.0.0.1', { maxRetriesPerRequest: 1 });
  node.on('error', () => undefined);
  try {
    return await use(node);
  } finally {
    node.disconnect();
  }
}

interface Shard {
  start: number;
  end: number;
  master: number;
  replica: number;
}

/** Every shard's slot range, master and replica ports, per CLUSTER SLOTS (asked of a live node). */
async function shards(via: number): Promise<Shard[]> {
  const ranges = (await onNode(via, (n) => n.cluster('SLOTS'))) as unknown as Array<[number, number, [string, number], [string, number]]>;
  return ranges.map(([start, end, master, replica]) => ({ start, end, master: master[1], replica: replica[1] }));
}

async function fundedKeys(count: number): Promise<LoadKey[]> {
  const admin = adminClient(setup.url);
  const keys: LoadKey[] = [];
  // One after another: the operator calls are not what this test measures.
  for (let i = 0; i < count; i++) {
    const accountId = await admin.createAccount();
    if ((await admin.topup(accountId, 5)).status !== 201) throw new Error('topup failed');
    const { raw } = await admin.mintKey(accountId, { limits: { spend_cap_usd: { day: DAY_CAP_USD } } });
    keys.push({ accountId, raw });
  }
  return keys;
}

describe('scale-out: Redis Cluster and MongoDB replica set failovers under load', () => {
  it('answers only 200 or 503 + Retry-After and keeps every charge exactly once', async () => {
    const began = Date.now();
    const progress = (what: string) => console.log(`scale-out +${((Date.now() - began) / 1000).toFixed(1)} s: ${what}`);
    const [warm, ...keys] = await fundedKeys(ACCOUNTS + 1);
    await warmUp(warm as LoadKey);
    progress('warmed up');
    let stop = false;
    const urls = webs.map((w) => w.url);
    const load = runLoad(urls, keys, 4, () => stop);
    const probed: Outcome[] = [];
    const live = cluster.nodes[0]!.port;
    await sleep(3_000);
    // 1. A replica takes over its master's slots without the master's consent: the shard of
    // the probe's account, so its admission state must be re-verified.
    const probe = keys[0] as LoadKey;
    const slot = keySlot(`{${probe.accountId}}`);
    const first = (await shards(live)).find((s) => s.start <= slot && slot <= s.end) as Shard;
    const takeover = () => onNode(first.replica, (n) => n.cluster('FAILOVER', 'TAKEOVER')).then(() => undefined);
    const recoveries = [await probeRecovery('Redis CLUSTER FAILOVER TAKEOVER', takeover, urls, probe, probed)];
    progress(`Redis takeover: ${JSON.stringify(recoveries.at(-1))}`);
    await sleep(4_000);
    // 2. The master of another shard (one of the load's accounts lives there) is killed; the
    // cluster promotes its replica.
    const slotsNow = await shards(first.replica);
    const second = slotsNow.find((s) => s.master !== first.replica && s.master !== first.master) as Shard;
    const victim = keys.find((k) => {
      const s = keySlot(`{${k.accountId}}`);
      return second.start <= s && s <= second.end;
    }) ?? probe;
    const kill = async () => void cluster.nodes.find((n) => n.port === second.master)?.child.kill('SIGKILL');
    recoveries.push(await probeRecovery('Redis kill -9 of a master', kill, urls, victim, probed));
    progress(`Redis kill: ${JSON.stringify(recoveries.at(-1))}`);
    await sleep(4_000);
    // 3. The MongoDB primary steps down; 4. the next primary is killed.
    recoveries.push(await probeRecovery('MongoDB replSetStepDown', () => rs.stepDown().then(() => undefined), urls, probe, probed));
    progress(`MongoDB step-down: ${JSON.stringify(recoveries.at(-1))}`);
    await sleep(4_000);
    recoveries.push(await probeRecovery('MongoDB kill -9 of the primary', async () => rs.kill(await rs.primary()), urls, probe, probed));
    progress(`MongoDB kill: ${JSON.stringify(recoveries.at(-1))}`);
    await sleep(4_000);
    stop = true;
    const outcomes = [...(await load), ...probed];
    progress('load finished');
    console.table(recoveries);
    const refusedLoad = outcomes.filter((o) => o.status === 503).length;
    console.log(`scale-out: ${outcomes.length} requests (${probed.length} probes), ${refusedLoad} refused with 503`);

    // Every fault was recovered from: within its probe, or (on a starved machine) by now.
    const after = await probeRecovery('after the last fault', async () => undefined, urls, probe, probed);
    expect(after.recoveryMs, 'a chat succeeds after the faults').toBeGreaterThan(0);
    outcomes.push(...probed.filter((o) => !outcomes.includes(o)));
    expect(outcomes.length).toBeGreaterThan(20);
    for (const kind of ['chat', 'stream', 'image', 'ocr'] as const) expect(outcomes.filter((o) => o.kind === kind && o.status === 200).length, kind).toBeGreaterThan(0);
    const refused = outcomes.filter((o) => o.status !== 200);
    const failed = refused.filter((o) => o.status !== 503);
    // The message carries what the processes logged at error level: CI shows it even when it cuts the log above.
    expect(failed.map((o) => `${o.kind} ${o.status} after ${o.endedAt - o.startedAt} ms, ${o.requestId}`), failed.length > 0 ? errorsLogged(failed.map((o) => o.requestId)) : undefined).toEqual([]);
    for (const o of refused) expect(Number(o.retryAfter), `${o.kind} ${o.requestId}`).toBeGreaterThanOrEqual(1);
    // Every request that was not refused showed its cost.
    expect(outcomes.filter((o) => o.status === 200 && o.cost === undefined).map((o) => `${o.kind} ${o.requestId}`)).toEqual([]);

    try {
      await moneyInvariants(keys, outcomes);
    } catch (err) {
      // What the webs said about charges (spooled, set aside, batches failed) names the cause.
      for (const w of webs) console.log(warningsOf(w.output()));
      throw new Error(`${(err as Error).message}\n${await whereabouts(outcomes)}`, { cause: err });
    }
  }, 420_000);
});

/** A warn or error log line, other than a client that left or a request refused with 503. */
const isWarning = (line: string): boolean => /"level":(40|50|60)/.test(line) && !/client disconnected|"status":503|briefly unavailable/.test(line);

/** The failed requests' log lines, then every process's error lines (the first 12,000 characters). */
function errorsLogged(requestIds: ReadonlyArray<string | undefined>): string {
  const output = [...webs, ...workers].map((p) => p.output().split('\n'));
  // The failed requests' own lines first: the error lines of a failover can fill the rest.
  const own = output.flatMap((lines, i) => lines.filter((line) => requestIds.some((id) => id !== undefined && line.includes(id))).map((line) => `process ${i}: ${line.slice(0, 3_000)}`));
  const errors = output.flatMap((lines, i) => lines.filter((line) => /"level":(50|60)/.test(line)).map((line) => `process ${i}: ${line.slice(0, 1_500)}`));
  return [...own, ...errors].join('\n').slice(0, 12_000);
}

/** A process's warn and error log lines (see isWarning). */
function warningsOf(output: string): string {
  return output
    .split('\n')
    .filter(isWarning)
    .map((line) => line.slice(0, 400))
    .join('\n');
}

/**
 * Where each shown cost missing from the ledger is: the spool files that hold it and what the
 * webs logged about it, with the webs' warnings counted by message. Goes into the failure's
 * message, which CI shows even when it cuts the log above.
 */
async function whereabouts(outcomes: readonly Outcome[]): Promise<string> {
  const shown = outcomes.filter((o) => o.cost !== undefined && o.requestId !== undefined).map((o) => o.requestId as string);
  const found = new Set((await setup.deps.c.ledger.find({ _id: { $in: shown } }, { projection: { _id: 1 } }).toArray()).map((d) => d._id));
  const names = (await readdir(spoolDir, { recursive: true })).filter((name) => name.endsWith('.jsonl'));
  const files = await Promise.all(names.map(async (name) => ({ name, text: await readFile(path.join(spoolDir, name), 'utf8').catch(() => '') })));
  const logs = webs.map((w) => w.output().split('\n'));
  const lines = shown.filter((id) => !found.has(id)).map((id) => {
    const spooled = files.filter((f) => f.text.includes(id)).map((f) => f.name);
    const said = logs.flatMap((log, i) => log.filter((line) => line.includes(id)).map((line) => `web ${i}: ${line.slice(0, 300)}`));
    return `missing ${id}: in spool files [${spooled.join(', ')}]\n  ${said.join('\n  ')}`;
  });
  const counts = logs.map((log, i) => {
    const byMessage = new Map<string, number>();
    for (const line of log.filter(isWarning)) {
      const msg = /"msg":"([^"]*)"/.exec(line)?.[1] ?? '?';
      byMessage.set(msg, (byMessage.get(msg) ?? 0) + 1);
    }
    return `web ${i} warnings: ${JSON.stringify(Object.fromEntries(byMessage))}`;
  });
  // Each web's own view: charges spooled and their age, charges committing, MongoDB writable.
  const states = await Promise.all(
    webs.map(async (w, i) => {
      const metrics = await call(w.url, 'GET', '/metrics', { token: TEST_ADMIN_TOKEN }).catch(() => undefined);
      const text = typeof metrics?.body === 'string' ? metrics.body : '';
      return `web ${i}: ${text.split('\n').filter((l) => /^farebox_(ledger_spool|ledger_committing|mongo_writable)/.test(l)).join('; ')}`;
    }),
  );
  const slow = logs.flatMap((log, i) => log.filter((line) => line.includes('ledger batch still committing')).map((line) => `web ${i}: ${line.slice(0, 300)}`));
  return [...lines, `spool files: [${files.map((f) => f.name).join(', ')}]`, ...counts, ...states, ...slow].join('\n');
}

/** One request of each kind through each web, so the load starts on warm processes. */
async function warmUp(key: LoadKey): Promise<void> {
  // Nine requests in a row cover every kind (see runLoad); their outcome does not matter.
  await Promise.all(webs.map((web) => runLoad([web.url], [key], 1, ((n) => () => n++ >= 9)(0))));
}

/** Balance = credits − charges, every shown cost in the ledger once, spend within the cap. */
async function moneyInvariants(keys: readonly LoadKey[], outcomes: readonly Outcome[]): Promise<void> {
  const shown = outcomes.filter((o) => o.cost !== undefined && o.requestId !== undefined);
  // Charges spooled during the MongoDB failover commit once a primary is back and the batches
  // in flight at the kill have ended (an account's charges commit in order): a batch whose
  // command never came back gives its charges up after 30 s, then their spooled copies commit.
  const ids = shown.map((o) => o.requestId as string);
  for (const deadline = Date.now() + DRAIN_WAIT_MS; Date.now() < deadline; await sleep(250)) {
    // The replica set may still be electing after the last kill: a failed read is asked again.
    if ((await setup.deps.c.ledger.countDocuments({ _id: { $in: ids } }).catch(() => -1)) === ids.length) break;
  }
  let charges = 0;
  for (const k of keys) {
    const reported = shown.filter((o) => o.accountId === k.accountId).map((o) => ({ requestId: o.requestId as string, cost: o.cost as bigint }));
    const f = await expectExactMoney(setup.deps, k.accountId, reported, { capNano: BigInt(DAY_CAP_USD * 1e9) });
    expect(f.charges.size).toBe(reported.length);
    charges += reported.length;
  }
  console.log(`scale-out: ${outcomes.length} requests, ${charges} charges, all in the ledger exactly once`);
}
