import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { mongodBinDir, winePrefixDir } from '../../../scripts/services/farebox-paths.js';
import { findFreePort } from '../../../scripts/services/free-port.js';
import { requestShutdown } from '../../../scripts/services/mongo-replica-set.js';
import { provisionMongod } from '../../../scripts/services/provision-mongod.js';
import { startMongod } from '../../../scripts/services/start-mongod.js';
import { waitFor } from '../../helpers/wait-for.js';

const run = promisify(execFile);

/** A mongod of the test's own (Windows build under Wine), which it may kill and restart. */
export interface PrivateMongod {
  url: string;
  /** Starts it again on the same port and data (journal recovery after a kill). */
  start(): Promise<void>;
  /** `kill -9` of the mongod process; resolves once it is gone. */
  kill(): Promise<void>;
  /** Clean shutdown, then removes its data. */
  stop(): Promise<void>;
}

/** Pids of this instance's mongod (matched by its own port and data folder, nothing broader). */
async function pidsOf(port: number, dataDir: string): Promise<number[]> {
  const { stdout } = await run('ps', ['-eo', 'pid=,args=']);
  const folder = path.basename(dataDir);
  return stdout
    .split('\n')
    .filter((line) => line.includes('mongod.exe') && line.includes(`--port ${port} `) && line.includes(folder))
    .map((line) => Number(line.trim().split(/\s+/)[0]))
    .filter((pid) => Number.isInteger(pid) && pid > 0);
}

/** Waits up to 10 s for the mongod processes to be gone; a straggler is left to the OS. */
async function untilGone(port: number, dataDir: string): Promise<void> {
  await waitFor('mongod to exit', async () => (await pidsOf(port, dataDir)).length === 0, { timeoutMs: 10_000 }).catch(() => undefined);
}

/** Starts a single-node replica set on a free port with a throwaway data folder. */
export async function privateMongod(): Promise<PrivateMongod> {
  const binary = await provisionMongod({ binDir: mongodBinDir() });
  const dataDir = await mkdtemp(path.join(tmpdir(), 'fbx-mongod-'));
  const port = await findFreePort();
  const url = `mongodb://127.0.0.1:${port}/?directConnection=true`;
  const handle: PrivateMongod = {
    url,
    async start() {
      await startMongod({ binary, winePrefix: winePrefixDir(), dataDir, port, startTimeoutMs: 120_000 });
    },
    async kill() {
      for (const pid of await pidsOf(port, dataDir)) process.kill(pid, 'SIGKILL');
      await untilGone(port, dataDir);
    },
    async stop() {
      if ((await pidsOf(port, dataDir)).length > 0) {
        await requestShutdown(url).catch(() => undefined);
        await untilGone(port, dataDir);
        await handle.kill();
      }
      await rm(dataDir, { recursive: true, force: true });
    },
  };
  await handle.start();
  return handle;
}
