import { fileURLToPath } from 'node:url';
import path from 'node:path';

/** Absolute path of the repository root (this file lives in `scripts/services/`). */
export function repoRoot(): string {
  return path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
}

/** The git-ignored folder holding local binaries, the Wine prefix and dev data. */
export function fareboxHome(root: string = repoRoot()): string {
  return path.join(root, '.farebox');
}

/** Where the verified `mongod.exe` is cached. */
export function mongodBinDir(home: string = fareboxHome()): string {
  return path.join(home, 'bin');
}

/**
 * The Wine prefix shared by every local mongod. Creating one takes ~10 s and ~700 MB, so it is
 * made once and reused; each mongod still gets its own data folder and port.
 */
export function winePrefixDir(home: string = fareboxHome()): string {
  return path.join(home, 'wine');
}

/** Persistent data folder used by `npm start`. */
export function devDataDir(home: string = fareboxHome()): string {
  return path.join(home, 'data');
}
