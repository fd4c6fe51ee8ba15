import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { MongoClient } from 'mongodb';
import { mongodBinDir, winePrefixDir } from '../../scripts/services/farebox-paths.js';
import { findFreePort } from '../../scripts/services/free-port.js';
import { provisionMongod } from '../../scripts/services/provision-mongod.js';
import { spawnService } from '../../scripts/services/service-process.js';
import { waitUntil } from '../../scripts/services/wait-until.js';
import { ensureWinePrefix, toWinePath, wineEnv } from '../../scripts/services/wine-prefix.js';

const run = promisify(execFile);
const SET = 'rsScale';

/** A three-member replica set of mongod (Windows build under Wine) on loopback. */
export interface MongoReplicaSet {
  /** Seed-list URI with `replicaSet=`, as a deployment uses. */
  readonly uri: string;
  readonly ports: readonly number[];
  /** The port of the current primary. */
  primary(): Promise<number>;
  /** `replSetStepDown` on the primary; resolves with its port. */
  stepDown(): Promise<number>;
  /** `kill -9` of one member. */
  kill(port: number): Promise<void>;
  stop(): Promise<void>;
}

async function pidsOf(port: number, dataDir: string): Promise<number[]> {
  const { stdout } = await run('ps', ['-eo', 'pid=,args=']);
  const folder = path.basename(dataDir);
  return stdout
    .split('\n')
    .filter((line) => line.includes('mongod.exe') && line.includes(`--port ${port} `) && line.includes(folder))
    .map((line) => Number(line.trim().split(/\s+/)[0]))
    .filter((pid) => Number.isInteger(pid) && pid > 0);
}

async function direct<T>(port: number, use: (client: MongoClient) => Promise<T>): Promise<T> {
  const client = new MongoClient(`mongodb://127.0.0.1:${port}/?directConnection=true`, { serverSelectionTimeoutMS: 2_000 });
  try {
    await client.connect();
    return await use(client);
  } finally {
    await client.close(true).catch(() => undefined);
  }
}

async function isPrimary(port: number): Promise<boolean> {
  return direct(port, async (c) => (await c.db('admin').command({ hello: 1 })).isWritablePrimary === true).catch(() => false);
}

/**
 * Starts three mongod on free loopback ports and initiates them as one replica set with short
 * election timeouts (a killed primary is replaced within seconds). Bounded by `timeoutMs`.
 */
export async function startMongoReplicaSet(timeoutMs = 150_000): Promise<MongoReplicaSet> {
  const binary = await provisionMongod({ binDir: mongodBinDir() });
  const prefix = winePrefixDir();
  await ensureWinePrefix(prefix);
  const root = await mkdtemp(path.join(tmpdir(), 'fbx-rs-'));
  const ports = [await findFreePort(), await findFreePort(), await findFreePort()];
  const dirs = ports.map((p) => path.join(root, `m${p}`));
  for (const [i, port] of ports.entries()) {
    const dir = dirs[i] as string;
    await mkdir(path.join(dir, 'db'), { recursive: true });
    const args = [binary, '--dbpath', toWinePath(path.join(dir, 'db')), '--port', String(port), '--bind_ip', '127.0.0.1', '--replSet', SET];
    args.push('--setParameter', 'diagnosticDataCollectionEnabled=false');
    spawnService({ command: 'wine', args, logFile: path.join(dir, 'mongod.log'), env: wineEnv(prefix), name: `mongod ${port}`, log: () => undefined });
  }
  const deadline = Date.now() + timeoutMs;
  const left = () => Math.max(1_000, deadline - Date.now());
  const set: MongoReplicaSet = {
    uri: `mongodb://${ports.map((p) => `127.0.0.1:${p}`).join(',')}/?replicaSet=${SET}`,
    ports,
    async primary() {
      for (;;) {
        for (const p of ports) if (await isPrimary(p)) return p;
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    async stepDown() {
      const port = await set.primary();
      await direct(port, (c) => c.db('admin').command({ replSetStepDown: 10, secondaryCatchUpPeriodSecs: 5 })).catch(() => undefined);
      return port;
    },
    async kill(port) {
      const dir = dirs[ports.indexOf(port)] as string;
      for (const pid of await pidsOf(port, dir)) process.kill(pid, 'SIGKILL');
      for (let i = 0; i < 200 && (await pidsOf(port, dir)).length > 0; i++) await new Promise((r) => setTimeout(r, 50));
    },
    // Its data is thrown away, so no clean shutdown is needed.
    async stop() {
      await Promise.all(ports.map((p) => set.kill(p)));
      await rm(root, { recursive: true, force: true });
    },
  };
  try {
    for (const p of ports) {
      await waitUntil(() => direct(p, async (c) => (await c.db('admin').command({ ping: 1 })).ok === 1).catch(() => false), {
        what: `mongod ${p} to answer`,
        intervalMs: 250,
        timeoutMs: left(),
      });
    }
    const members = ports.map((p, i) => ({ _id: i, host: `127.0.0.1:${p}`, priority: i === 0 ? 2 : 1 }));
    // Short enough for a quick failover, long enough that a busy machine does not trigger elections.
    const settings = { electionTimeoutMillis: 5_000, heartbeatIntervalMillis: 1_000 };
    await direct(ports[0] as number, (c) => c.db('admin').command({ replSetInitiate: { _id: SET, members, settings } }));
    await waitUntil(async () => (await Promise.all(ports.map(isPrimary))).some(Boolean), { what: 'a primary', intervalMs: 250, timeoutMs: left() });
  } catch (err) {
    await set.stop();
    throw err;
  }
  return set;
}
