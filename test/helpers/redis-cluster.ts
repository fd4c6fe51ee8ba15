import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { waitRedisPong } from './wait-redis.js';

const run = promisify(execFile);

/** One redis-server of a local cluster. */
export interface ClusterNodeProcess {
  readonly port: number;
  child: ChildProcess;
}

/** A local Redis Cluster on loopback: three masters, three replicas. */
export interface LocalRedisCluster {
  readonly nodes: ClusterNodeProcess[];
  /** `REDIS_CLUSTER_NODES` for it. */
  readonly seeds: string;
  /** Restarts a node that was killed (same port and data folder, so it rejoins). */
  restart(port: number): Promise<void>;
  stop(): Promise<void>;
}

async function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** Six consecutive free ports whose cluster bus ports (+10000) are free too. */
async function freePorts(count: number): Promise<number[]> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const base = 20_000 + Math.floor(Math.random() * 20_000);
    const ports = Array.from({ length: count }, (_, i) => base + i);
    const checks = await Promise.all(ports.flatMap((p) => [portFree(p), portFree(p + 10_000)]));
    if (checks.every(Boolean)) return ports;
  }
  throw new Error('no free ports for a Redis Cluster');
}

function startNode(dir: string, port: number): ChildProcess {
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--cluster-enabled', 'yes', '--cluster-config-file', `nodes-${port}.conf`];
  args.push('--cluster-node-timeout', '1000', '--appendonly', 'no', '--save', '', '--dir', dir, '--daemonize', 'no', '--loglevel', 'warning');
  return spawn('redis-server', args, { stdio: 'ignore' });
}

async function clusterOk(port: number): Promise<boolean> {
  const probe = new Redis(port, '127.0.0.1', { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  probe.on('error', () => undefined);
  try {
    await probe.connect();
    const info = await probe.cluster('INFO');
    return /cluster_state:ok/.test(String(info));
  } catch {
    return false;
  } finally {
    probe.disconnect();
  }
}

/** Waits until every node reports `cluster_state:ok`. */
export async function waitClusterOk(ports: readonly number[], timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if ((await Promise.all(ports.map(clusterOk))).every(Boolean)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('Redis Cluster did not reach cluster_state:ok');
}

/**
 * Starts six `redis-server --cluster-enabled yes` on loopback and joins them with
 * `redis-cli --cluster create --cluster-replicas 1` (three masters, three replicas).
 */
export async function startRedisCluster(): Promise<LocalRedisCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'fbx-cluster-'));
  const ports = await freePorts(6);
  const nodes: ClusterNodeProcess[] = ports.map((port) => ({ port, child: startNode(dir, port) }));
  const stop = async (): Promise<void> => {
    for (const n of nodes) if (n.child.exitCode === null) n.child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await Promise.all(nodes.map((n) => waitRedisPong(`redis://127.0.0.1:${n.port}`, { child: n.child })));
    const addresses = ports.map((p) => `127.0.0.1:${p}`);
    await run('redis-cli', ['--cluster', 'create', ...addresses, '--cluster-replicas', '1', '--cluster-yes'], { timeout: 30_000 });
    await waitClusterOk(ports);
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    nodes,
    seeds: ports.map((p) => `127.0.0.1:${p}`).join(','),
    async restart(port) {
      const node = nodes.find((n) => n.port === port);
      if (!node) throw new Error(`no node on ${port}`);
      node.child = startNode(dir, port);
      await waitRedisPong(`redis://127.0.0.1:${port}`, { child: node.child });
    },
    stop,
  };
}
