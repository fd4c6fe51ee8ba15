import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { findFreePort } from '../services/free-port.js';
import type { ResolvedServices } from '../services/service-types.js';
import type { BenchOptions } from './bench-options.js';
import { ProcessGroup, waitHttpReady, type BenchProcess } from './bench-processes.js';
import { seedBench, type BenchAccount } from './bench-seed.js';
import { startPortkey, type Peer } from './peer-portkey.js';
import { relayNode } from './relay-node.js';
import { descendantsOf, hardOpenFileLimit, openFileLimit, pinProcess, processName, type Tracked } from './proc-stats.js';

/** Core of the load generator, mock upstream, worker and stores; the gateway gets the other. */
export const LOAD_CORE = '0';
export const GATEWAY_CORE = '1';

/** Everything the scenarios talk to. */
export interface BenchStack {
  readonly runtime: 'dist' | 'tsx';
  readonly pinned: boolean;
  readonly runId: string;
  readonly logDir: string;
  readonly mongoUri: string;
  readonly redisUrl: string;
  readonly dbName: string;
  readonly redisPrefix: string;
  readonly adminToken: string;
  readonly mockUrl: string;
  readonly floorUrl: string;
  readonly webUrl: string;
  readonly web: BenchProcess;
  /** How to start another web or floor proxy like the ones measured (node arguments, environment). */
  readonly relays: { web: { args: string[]; env: NodeJS.ProcessEnv }; floor: (port: number) => string[] };
  /** The Portkey peer, or why it is not in this run. */
  readonly portkey: Peer | { failed: string };
  /** Most streams that can be held open given the open-files limits (see {@link fileLimits}). */
  readonly openStreamsCap: number;
  readonly account: BenchAccount;
  /** Every process whose CPU use is reported, with its core. */
  readonly tracked: Tracked[];
  readonly group: ProcessGroup;
  readonly services: ResolvedServices;
}

type Log = (message: string) => void;

/** What the runner has prepared before the stack starts. */
export interface StackSetup {
  root: string;
  options: BenchOptions;
  group: ProcessGroup;
  pinned: boolean;
  logDir: string;
  services: ResolvedServices;
  runtime: 'dist' | 'tsx';
}

/**
 * Open-files limits for holding `streams` streams: the web and the floor need two sockets per
 * stream (client and upstream), the mock one. Children get a raised limit when the hard limit
 * allows; the runner keeps its own, so it caps how many streams can be opened.
 */
function fileLimits(streams: number, log: Log): { nofile: number | undefined; cap: number } {
  const soft = openFileLimit();
  const hard = hardOpenFileLimit();
  const need = 2 * streams + 2_048;
  log(`ulimit -n is ${soft} (hard ${hard}); ${streams} open streams need about ${need} in the web process`);
  const nofile = soft >= need ? undefined : Math.min(need, hard);
  const childCap = Math.floor(((nofile ?? soft) - 2_048) / 2);
  const cap = Math.max(0, Math.min(streams, childCap, soft - 1_024));
  if (nofile !== undefined) log(`raising ulimit -n to ${nofile} for the child processes`);
  if (cap < streams) log(`open-files limits allow only ${cap} open streams`);
  return { nofile, cap };
}

/** Compiles to dist/ (what production runs); undefined when that did not produce the entries. */
export function build(root: string, log: Log): 'dist' | undefined {
  const started = Date.now();
  log('compiling to dist/ (tsc -p .)');
  const result = spawnSync(path.join(root, 'node_modules/.bin/tsc'), ['-p', '.'], { cwd: root, encoding: 'utf8' });
  const entries = ['dist/src/http/server.js', 'dist/workers/main.js', 'dist/scripts/release.js', 'dist/scripts/bench/web-probe.js'];
  const fresh = entries.every((entry) => existsSync(path.join(root, entry)) && statSync(path.join(root, entry)).mtimeMs >= started - 1_000);
  if (result.status !== 0) log(`tsc reported problems (exit ${result.status}); ${fresh ? 'the emitted JavaScript is used' : 'falling back to tsx'}`);
  return fresh ? 'dist' : undefined;
}

function nodeArgs(runtime: 'dist' | 'tsx', entry: string, preloads: string[] = [], flags: string[] = []): string[] {
  if (runtime === 'dist') return [...flags, ...preloads.flatMap((p) => ['--import', `./dist/${p}.js`]), `dist/${entry}.js`];
  return [...flags, '--import', 'tsx', ...preloads.flatMap((p) => ['--import', `./${p}.ts`]), `${entry}.ts`];
}

/** Stores started for the run are pinned beside the load generator, off the gateway's core. */
function trackStores(pinned: boolean, known: ReadonlySet<number>): Tracked[] {
  const stores = descendantsOf(process.pid).filter((pid) => !known.has(pid));
  return stores.map((pid) => {
    if (pinned) pinProcess(pid, LOAD_CORE);
    return { name: processName(pid), pid, core: pinned ? LOAD_CORE : 'any' };
  });
}

/** The release step (indexes, catalog) for the database and settings `env` names. */
export function runRelease(root: string, runtime: 'dist' | 'tsx', env: NodeJS.ProcessEnv): void {
  const result = spawnSync(relayNode().path, nodeArgs(runtime, 'scripts/release'), { cwd: root, env, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`release step failed (${result.status}):\n${result.stdout}\n${result.stderr}`);
}

/**
 * Starts the benchmark's world on the given Redis and MongoDB: the release step on a dedicated
 * `farebox_bench_<id>` database, the mock upstream and the worker on the load core, the floor
 * proxy, the web process and the Portkey peer on the gateway core, and seeds model, account and
 * key through the operator API.
 */
export async function startStack(setup: StackSetup, log: Log): Promise<BenchStack> {
  const { root, options, group, pinned, logDir, services, runtime } = setup;
  const runId = randomBytes(4).toString('hex');
  const adminToken = randomBytes(24).toString('base64url');
  const upstreamKey = randomBytes(16).toString('hex');
  const [mockPort, floorPort, webPort, portkeyPort] = [await findFreePort(), await findFreePort(), await findFreePort(), await findFreePort()];
  const providersFile = path.join(logDir, 'providers.json');
  writeFileSync(
    providersFile,
    JSON.stringify([
      { id: 'local', kind: 'local' },
      { id: 'openai', kind: 'openai', base_url: `http://127.0.0.1:${mockPort}/v1`, api_key_env: 'BENCH_UPSTREAM_KEY' },
    ]),
  );
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    NODE_ENV: 'production',
    PORT: String(webPort),
    REDIS_URL: services.redisUrl,
    MONGODB_URI: services.mongoUri,
    MONGODB_DB: `farebox_bench_${runId}`,
    REDIS_PREFIX: `farebox_bench_${runId}`,
    ADMIN_TOKEN: adminToken,
    LOG_LEVEL: options.logLevel,
    PROVIDERS_FILE: providersFile,
    BENCH_UPSTREAM_KEY: upstreamKey,
    // One worker process; enough jobs in flight that waiting on Redis is not the limit.
    WORKER_CONCURRENCY: String(options.plan.jobsConcurrency),
    JOB_TIMEOUT_MS: '30000',
    SHUTDOWN_GRACE_MS: '10000',
    // Load shedding off: the closed loops that find a relay's capacity saturate it on purpose,
    // and a refusal would void the row. The overload row turns it back on (shipped settings).
    SHED_EVENT_LOOP_DELAY_MS: '0',
    SHED_EVENT_LOOP_BUSY_PERCENT: '0',
  };
  log(`release step on database ${env.MONGODB_DB}`);
  runRelease(root, runtime, env);

  const limits = fileLimits(options.plan.openStreams, log);
  const spawn = (name: string, core: string, args: string[]): BenchProcess => group.spawn({ name, core, args, env, cwd: root, nofile: limits.nofile });
  const mock = spawn('mock-upstream', LOAD_CORE, nodeArgs(runtime, 'scripts/bench/mock-upstream').concat(String(mockPort)));
  const floorArgs = (port: number): string[] => nodeArgs(runtime, 'scripts/bench/floor-proxy').concat(String(port), `http://127.0.0.1:${mockPort}`, upstreamKey);
  const floor = spawn('floor-proxy', GATEWAY_CORE, floorArgs(floorPort));
  const profile = options.profile ? ['--cpu-prof', `--cpu-prof-dir=${logDir}`] : [];
  const webArgs = nodeArgs(runtime, 'src/http/server', ['scripts/bench/web-probe'], ['--expose-gc']);
  const web = spawn('web', GATEWAY_CORE, [...profile, ...webArgs]);
  const worker = spawn('worker', LOAD_CORE, nodeArgs(runtime, 'workers/main'));
  const mockUrl = `http://127.0.0.1:${mockPort}`;
  const floorUrl = `http://127.0.0.1:${floorPort}`;
  const webUrl = `http://127.0.0.1:${webPort}`;
  await Promise.all([
    waitHttpReady(`${mockUrl}/health`, mock, 30_000),
    waitHttpReady(`${floorUrl}/health`, floor, 30_000),
    waitHttpReady(`${webUrl}/readyz`, web, 90_000),
    worker.waitForLine(/worker started/, 90_000),
  ]);
  const portkey = await startPortkey({ root, runtime, group, core: GATEWAY_CORE, port: portkeyPort, mockUrl, upstreamKey });
  log('failed' in portkey ? `Portkey peer unavailable: ${portkey.failed}` : `Portkey peer at ${portkey.url} relays to the mock`);
  const account = await seedBench(webUrl, adminToken, runId);
  const runner: Tracked = { name: 'runner+loadgen', pid: process.pid, core: pinned ? LOAD_CORE : 'any' };
  const children = [mock, floor, web, worker, ...('failed' in portkey ? [] : [portkey.proc])];
  const stores = trackStores(pinned, new Set(children.map((c) => c.pid)));
  return {
    runtime, pinned, runId, logDir, adminToken, mockUrl, floorUrl, webUrl, web, portkey, account, group, services,
    relays: { web: { args: webArgs, env }, floor: floorArgs },
    openStreamsCap: limits.cap,
    mongoUri: services.mongoUri,
    redisUrl: services.redisUrl,
    dbName: env.MONGODB_DB ?? '',
    redisPrefix: env.REDIS_PREFIX ?? '',
    tracked: [runner, ...children, ...stores],
  };
}
