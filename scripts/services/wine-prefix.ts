import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { silentLog, type ServiceLog } from './service-types.js';

const run = promisify(execFile);
const READY_MARKER = '.farebox-ready';

/**
 * Environment for Wine programs in `prefix`. Debug output off (it floods the log), and Mono and
 * Gecko disabled, since mongod needs neither and Wine would otherwise offer to download them.
 */
export function wineEnv(prefix: string, base: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { ...base, WINEPREFIX: prefix, WINEDEBUG: '-all', WINEDLLOVERRIDES: 'mscoree,mshtml=' };
}

/** The `Z:` drive path Wine maps to an absolute Linux path. */
export function toWinePath(absolutePath: string): string {
  return `Z:${path.resolve(absolutePath).replaceAll('/', '\\')}`;
}

/** Tries at creating a prefix: `wineboot --init` now and then fails on a fresh prefix ("could not load kernel32.dll"). */
const PREFIX_ATTEMPTS = 3;

/**
 * Creates the Wine prefix once (`wineboot --init`, ~10 s). The marker is written after Wine has
 * finished, so an interrupted creation is redone instead of leaving a half-made prefix in use.
 * A failed creation is cleared away (its wineserver stopped, the folder removed) and tried again.
 */
export async function ensureWinePrefix(prefix: string, base: NodeJS.ProcessEnv = {}, log: ServiceLog = silentLog): Promise<void> {
  const marker = path.join(prefix, READY_MARKER);
  if (await exists(marker)) return;
  const env = wineEnv(prefix, base);
  for (let attempt = 1; ; attempt++) {
    log(`creating Wine prefix ${prefix} (once, ~10 s)`);
    await fs.rm(prefix, { recursive: true, force: true });
    await fs.mkdir(prefix, { recursive: true });
    try {
      await run('wineboot', ['--init'], { env, timeout: 180_000 });
      await run('wineserver', ['-w'], { env, timeout: 60_000 });
      break;
    } catch (err) {
      await run('wineserver', ['-k'], { env, timeout: 10_000 }).catch(() => undefined);
      if (attempt >= PREFIX_ATTEMPTS) throw err;
      log(`creating the Wine prefix failed (${oneLine(err)}); trying again`);
    }
  }
  await fs.writeFile(marker, `${new Date().toISOString()}\n`);
}

/** An error's message on one line (execFile's carries the command's stderr after a newline). */
function oneLine(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).replace(/\s*\n\s*/g, ' / ').slice(0, 300);
}

/**
 * Waits for the prefix's wineserver (and the helper processes it keeps) to go away. Bounded,
 * because another mongod may legitimately share the prefix and keep it alive.
 */
export async function waitForWineserverExit(prefix: string, base: NodeJS.ProcessEnv = {}, timeoutMs = 10_000): Promise<boolean> {
  try {
    await run('wineserver', ['-w'], { env: wineEnv(prefix, base), timeout: timeoutMs });
    return true;
  } catch {
    return false;
  }
}

async function exists(file: string): Promise<boolean> {
  try {
    await fs.access(file);
    return true;
  } catch {
    return false;
  }
}
