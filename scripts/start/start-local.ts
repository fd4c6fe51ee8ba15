import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { devDataDir, fareboxHome, repoRoot } from '../services/farebox-paths.js';
import { resolveServices } from '../services/resolve-services.js';
import { runEntry, spawnEntry, stopChild } from './child-process.js';
import { seedDemo } from './demo-seed.js';

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

  const children = [spawnEntry('src/server.ts', env, root), spawnEntry('workers/main.ts', env, root)];
  log(`gateway on http://localhost:${env.PORT || 8080}/v1 (Ctrl-C stops everything)`);
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await Promise.all(children.map((c) => stopChild(c)));
    await services.stop();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
  for (const child of children) child.once('exit', (code) => { if (!stopping) { log(`a process exited (${code}); stopping`); void stop(); } });
}

main().catch(async (err: unknown) => {
  console.error(`[farebox] start failed: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
