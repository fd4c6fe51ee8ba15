import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** A copy of this checkout in a temporary folder, with its own `.farebox/data`. */
export interface ScratchCheckout {
  readonly dir: string;
  remove(): void;
}

/**
 * Copies the checkout's files (tracked and new, as git lists them, so uncommitted work is
 * included) into a temporary folder. node_modules, the verified mongod binary and the Wine prefix
 * are linked, not copied: they are large and only read. Data, ports and the admin token are the
 * copy's own, so an `npm start` there is a fresh checkout's first start.
 */
export function makeScratchCheckout(): ScratchCheckout {
  const dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'farebox-checkout-')));
  const listed = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT });
  for (const file of listed.toString('utf8').split('\0').filter(Boolean)) {
    const from = path.join(ROOT, file);
    if (!existsSync(from)) continue; // deleted in the work tree
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    copyFileSync(from, path.join(dir, file));
  }
  symlinkSync(realpathSync(path.join(ROOT, 'node_modules')), path.join(dir, 'node_modules'));
  mkdirSync(path.join(dir, '.farebox'));
  for (const shared of ['bin', 'wine']) {
    const from = path.join(ROOT, '.farebox', shared);
    if (existsSync(from)) symlinkSync(realpathSync(from), path.join(dir, '.farebox', shared));
  }
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
