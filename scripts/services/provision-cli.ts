import { fareboxHome, mongodBinDir, winePrefixDir } from './farebox-paths.js';
import { provisionMongod } from './provision-mongod.js';
import { ensureWinePrefix } from './wine-prefix.js';

/**
 * `npm run provision`: fetches and verifies mongod.exe and creates the Wine prefix, so the slow
 * one-time work happens visibly (CI, first checkout) instead of inside a test's setup.
 */
async function main(): Promise<void> {
  const log = (message: string): void => console.log(`[provision] ${message}`);
  const home = fareboxHome();
  const started = Date.now();
  const binary = await provisionMongod({ binDir: mongodBinDir(home), env: process.env, log });
  log(`mongod: ${binary}`);
  await ensureWinePrefix(winePrefixDir(home), process.env, log);
  log(`Wine prefix: ${winePrefixDir(home)}`);
  log(`done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

main().catch((error: unknown) => {
  console.error(`[provision] failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
