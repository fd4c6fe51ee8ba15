import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { quietStdStreams, safeWriter } from '../../src/platform/log/index.js';
import { newSigningKeyPem } from '../../src/ledger/index.js';
import { devDataDir, fareboxHome, repoRoot } from '../services/farebox-paths.js';
import { resolveServices } from '../services/resolve-services.js';
import { runEntry, spawnEntry } from './child-process.js';
import { acquireDataLock } from './data-lock.js';
import { seedDemo } from './demo-seed.js';
import { AGENT_DEFAULT_MODELS } from './agent-aliases.js';
import { stopLeftovers } from './leftovers.js';
import { LocalRun } from './local-run.js';
import { markRun } from './run-mark.js';
import { Supervisor } from './supervisor.js';

const stdout = safeWriter(1);
const stderr = safeWriter(2);
const log = (message: string): void => stdout.write(`[farebox] ${message}\n`);
// Marked first, so every process this run starts, and every one those start, carries the mark.
const run = new LocalRun({ log, fail: (message) => stderr.write(`[farebox] ${message}\n`) }, markRun(process.env));

/** A stable operator token for this checkout: made once, kept in the git-ignored folder. */
function adminToken(env: NodeJS.ProcessEnv): { token: string; generated: boolean } {
  if (env.ADMIN_TOKEN) return { token: env.ADMIN_TOKEN, generated: false };
  const file = path.join(fareboxHome(), 'admin-token');
  if (!existsSync(file)) writeFileSync(file, randomBytes(24).toString('base64url'), { mode: 0o600 });
  return { token: readFileSync(file, 'utf8').trim(), generated: true };
}

/** Takes the data folder, or says who has it and exits 2. */
async function takeDataFolder(dataDir: string, port: number): Promise<void> {
  const outcome = await acquireDataLock({ dataDir, port, log, cleanUp: (dead) => stopLeftovers(dead, log) });
  if (outcome.kind === 'owned') return run.own(outcome.lock);
  const { pid, port: theirPort } = outcome.holder;
  const what = outcome.stopping ? 'is still stopping' : 'is already running';
  stderr.write(`[farebox] npm start ${what} in this checkout: pid ${pid}, gateway on http://localhost:${theirPort}/v1 (data ${dataDir})\n`);
  process.exit(2);
}

/** Creates the demo account on the first start of a fresh data folder and shows its key once. */
async function seedOnce(dataDir: string, mongoUri: string, dbName: string): Promise<void> {
  const marker = path.join(dataDir, 'demo-seeded');
  if (existsSync(marker)) return;
  const demo = await seedDemo(mongoUri, dbName);
  writeFileSync(marker, `${demo.accountId} ${demo.keyId}\n`);
  log(`coding agents' default models (${AGENT_DEFAULT_MODELS.join(', ')}) answer as local/echo`);
  log(`demo account ${demo.accountId} with $5.00 of credit; its key is shown once:`);
  stdout.write(`FAREBOX_DEMO_KEY=${demo.rawKey}\n`);
}

/**
 * A stable receipt signing key for this checkout, made once and kept (mode 0600) in the
 * git-ignored folder, so receipts signed before a restart still verify. Never printed.
 */
function receiptSigningKey(env: NodeJS.ProcessEnv): string {
  if (env.RECEIPT_SIGNING_KEY) return env.RECEIPT_SIGNING_KEY;
  const file = path.join(fareboxHome(), 'receipt-signing-key.pem');
  if (!existsSync(file)) writeFileSync(file, newSigningKeyPem(), { mode: 0o600 });
  return readFileSync(file, 'utf8');
}

/**
 * `npm start`: the data folder's lock, local Redis and MongoDB (DESIGN §8), the release step, a
 * demo account on the first start of a fresh data folder, then one web and one worker process
 * until Ctrl-C. Each step first checks whether a stop was asked for meanwhile.
 */
async function main(): Promise<void> {
  const root = repoRoot();
  const dataDir = devDataDir();
  const port = Number(process.env.PORT || 8080);
  mkdirSync(dataDir, { recursive: true });
  await takeDataFolder(dataDir, port);
  if (run.stopping) return;
  const starting = resolveServices({ env: process.env, dataDir, log, onSpawn: (s) => run.tracked.add(s.name, s.pid, s.url) });
  run.startingServices(starting);
  const services = await starting;
  const { token, generated } = adminToken(process.env);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: process.env.NODE_ENV ?? 'development',
    REDIS_URL: services.redisUrl,
    MONGODB_URI: services.mongoUri,
    ADMIN_TOKEN: token,
    RECEIPT_SIGNING_KEY: receiptSigningKey(process.env),
  };
  if (run.stopping) return;
  await runEntry('scripts/release.ts', env, root, (child) => run.tracked.child('release', child));
  if (run.stopping) return;
  await seedOnce(dataDir, services.mongoUri, env.MONGODB_DB || 'farebox');
  if (generated) log(`ADMIN_TOKEN=${token} (kept in .farebox/admin-token)`);
  if (run.stopping) return;
  // Web first: it stops taking requests before the worker and the stores behind it go away.
  const supervisor = new Supervisor(
    [
      { name: 'web', spawn: () => run.tracked.child('web', spawnEntry('src/http/server.ts', env, root)) },
      { name: 'worker', spawn: () => run.tracked.child('worker', spawnEntry('workers/main.ts', env, root)) },
    ],
    { log, onGiveUp: () => void run.stop(1) },
  );
  supervisor.start();
  run.running(supervisor);
  log(`gateway on http://localhost:${port}/v1 (Ctrl-C stops everything)`);
  log(`console on http://localhost:${port}/console (sign in with ADMIN_TOKEN or a management key)`);
}

// Before anything starts: output that cannot fail, and the handlers that stop what was started.
quietStdStreams();
run.installHandlers();
main().catch((err: unknown) => {
  // A step cut short by a stop is not a failure of its own.
  if (!run.stopping) run.fail(`start failed: ${err instanceof Error ? err.message : String(err)}`);
});
