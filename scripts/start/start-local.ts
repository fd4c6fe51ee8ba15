import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { devDataDir, fareboxHome, repoRoot } from '../services/farebox-paths.js';
import { resolveServices } from '../services/resolve-services.js';
import { runEntry, spawnEntry } from './child-process.js';
import { seedDemo } from './demo-seed.js';
import { Supervisor } from './supervisor.js';

const log = (message: string) => console.log(`[farebox] ${message}`);

/** A stable operator token for this checkout: made once, kept in the git-ignored folder. */
function adminToken(env: NodeJS.ProcessEnv): { token: string; generated: boolean } {
  if (env.ADMIN_TOKEN) return { token: env.ADMIN_TOKEN, generated: false };
  const file = path.join(fareboxHome(), 'admin-token');
  if (!existsSync(file)) writeFileSync(file, randomBytes(24).toString('base64url'), { mode: 0o600 });
  return { token: readFileSync(file, 'utf8').trim(), generated: true };
}

/**
 * `npm start`: local Redis and MongoDB (DESIGN §8), the release step, a demo account on the
 * first start of a fresh data folder, then one web and one worker process until Ctrl-C.
 */
async function main(): Promise<void> {
  const root = repoRoot();
  const dataDir = devDataDir();
  mkdirSync(dataDir, { recursive: true });
  const services = await resolveServices({ env: process.env, dataDir, log });
  const { token, generated } = adminToken(process.env);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: process.env.NODE_ENV ?? 'development',
    REDIS_URL: services.redisUrl,
    MONGODB_URI: services.mongoUri,
    ADMIN_TOKEN: token,
  };
  await runEntry('scripts/release.ts', env, root);

  const marker = path.join(dataDir, 'demo-seeded');
  if (!existsSync(marker)) {
    const demo = await seedDemo(services.mongoUri, env.MONGODB_DB || 'farebox');
    writeFileSync(marker, `${demo.accountId} ${demo.keyId}\n`);
    log(`demo account ${demo.accountId} with $5.00 of credit; its key is shown once:`);
    console.log(`FAREBOX_DEMO_KEY=${demo.rawKey}`);
  }
  if (generated) log(`ADMIN_TOKEN=${token} (kept in .farebox/admin-token)`);

  // Web first: it stops taking requests before the worker and the stores behind it go away.
  const supervisor = new Supervisor(
    [
      { name: 'web', spawn: () => spawnEntry('src/server.ts', env, root) },
      { name: 'worker', spawn: () => spawnEntry('workers/main.ts', env, root) },
    ],
    { log, onGiveUp: () => void stop(1) },
  );
  let stopping = false;
  const stop = async (code: number): Promise<void> => {
    if (stopping) return;
    stopping = true;
    log('stopping web, then worker, then local services');
    await supervisor.stop();
    await services.stop();
    process.exit(code);
  };
  // A second Ctrl-C means "now": children are killed, the services' exit hooks stop them.
  // (One keypress can arrive twice, from the terminal and relayed by tsx: hence the second.)
  let firstSignalAt = 0;
  const onSignal = (): void => {
    if (!stopping) {
      firstSignalAt = Date.now();
      return void stop(0);
    }
    if (Date.now() - firstSignalAt < 1_000) return;
    supervisor.killAll();
    process.exit(1);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  process.on('uncaughtException', (err) => {
    console.error(`[farebox] supervisor error: ${err.message}`);
    void stop(1);
  });
  supervisor.start();
  log(`gateway on http://localhost:${env.PORT || 8080}/v1 (Ctrl-C stops everything)`);
  log(`console on http://localhost:${env.PORT || 8080}/console (sign in with ADMIN_TOKEN or a management key)`);
}

main().catch(async (err: unknown) => {
  console.error(`[farebox] start failed: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
