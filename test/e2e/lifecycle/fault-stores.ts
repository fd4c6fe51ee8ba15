import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fareboxHome, mongodBinDir, winePrefixDir } from '../../../scripts/services/farebox-paths.js';
import { startLocalServices } from '../../../scripts/services/local-services.js';
import { provisionMongod } from '../../../scripts/services/provision-mongod.js';
import { startMongod } from '../../../scripts/services/start-mongod.js';
import type { RunningService, StartedServices } from '../../../scripts/services/service-types.js';
import { freePort } from '../../helpers/spawn-web.js';
import { waitRedisPong } from '../../helpers/wait-redis.js';

/** A redis-server of the test's own that can be killed or frozen (half-open: SIGSTOP). */
export interface FaultRedis {
  url: string;
  /** kill -9: connections are refused from now on. */
  kill(): Promise<void>;
  /** SIGSTOP: the kernel still accepts connections, nothing ever answers. */
  freeze(): void;
  /** Gone for good, whatever state it was in. */
  dispose(): Promise<void>;
}

/** Starts a redis-server without persistence on a free port. */
export async function faultRedis(): Promise<FaultRedis> {
  const port = await freePort();
  const url = `redis://127.0.0.1:${port}`;
  const child: ChildProcess = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  const exited = once(child, 'exit');
  const kill = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGKILL');
    await exited;
  };
  await waitRedisPong(url);
  return { url, kill, freeze: () => void child.kill('SIGSTOP'), dispose: kill };
}

/** A throwaway mongod (replica set, under Wine here) that the test may stop. */
export async function faultMongo(): Promise<{ url: string; stop: () => Promise<void> }> {
  const started: StartedServices = await startLocalServices({ needs: { redis: false, mongo: true } });
  if (!started.mongo) throw new Error('no mongod started');
  return { url: started.mongo.url, stop: () => started.stop() };
}

/** A private mongod that keeps its data across a stop and a start on the same port. */
export interface RestartableMongo {
  url: string;
  stop(): Promise<void>;
  start(): Promise<void>;
  dispose(): Promise<void>;
}

/** Starts a private mongod whose data folder survives {@link RestartableMongo.stop}. */
export async function restartableMongo(): Promise<RestartableMongo> {
  const home = fareboxHome();
  const binary = await provisionMongod({ binDir: mongodBinDir(home) });
  const dataDir = await mkdtemp(path.join(tmpdir(), 'fbx-mongo-'));
  const port = await freePort();
  let running: RunningService | undefined;
  const start = async (): Promise<void> => {
    running = await startMongod({ binary, winePrefix: winePrefixDir(home), dataDir, port });
  };
  const stop = async (): Promise<void> => {
    await running?.stop();
    running = undefined;
  };
  await start();
  if (!running) throw new Error('no mongod started');
  return {
    url: (running as RunningService).url,
    stop,
    start,
    async dispose() {
      await stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
