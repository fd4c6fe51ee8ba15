import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ensureWinePrefix } from '../../../scripts/services/wine-prefix.js';

const root = mkdtempSync(path.join(tmpdir(), 'wine-prefix-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/**
 * A folder with stand-ins for `wineboot` and `wineserver` on PATH: `wineboot` fails its first
 * `failures` calls as Wine sometimes does on a fresh prefix, and every call is logged.
 */
function fakeWine(name: string, failures: number): { env: NodeJS.ProcessEnv; calls: () => string[] } {
  const bin = path.join(root, name);
  const log = path.join(bin, 'calls.log');
  mkdirSync(bin, { recursive: true });
  writeFileSync(log, '');
  const script = (body: string): string => `#!/bin/sh\necho "$(basename "$0") $*" >> "${log}"\n${body}\n`;
  const bootFailures = `n=$(grep -c '^wineboot' "${log}"); if [ "$n" -le ${failures} ]; then echo 'wine: could not load kernel32.dll, status c0000135' >&2; exit 1; fi`;
  for (const [file, body] of [['wineboot', bootFailures], ['wineserver', 'exit 0']] as const) {
    writeFileSync(path.join(bin, file), script(body));
    chmodSync(path.join(bin, file), 0o755);
  }
  return { env: { PATH: `${bin}:${process.env.PATH ?? ''}` }, calls: () => readFileSync(log, 'utf8').trim().split('\n') };
}

describe('ensureWinePrefix', () => {
  it('clears a failed creation away and tries again', async () => {
    const wine = fakeWine('flaky', 1);
    const prefix = path.join(root, 'flaky-prefix');
    const said: string[] = [];
    await ensureWinePrefix(prefix, wine.env, (line) => said.push(line));
    expect(wine.calls()).toEqual(['wineboot --init', 'wineserver -k', 'wineboot --init', 'wineserver -w']);
    expect(existsSync(path.join(prefix, '.farebox-ready'))).toBe(true);
    expect(said.some((line) => line.includes('could not load kernel32.dll'))).toBe(true);
    // Made once: a second call finds the marker and runs nothing.
    await ensureWinePrefix(prefix, wine.env);
    expect(wine.calls()).toHaveLength(4);
  });

  it('gives up after three failed creations and leaves no marker', async () => {
    const wine = fakeWine('broken', 5);
    const prefix = path.join(root, 'broken-prefix');
    await expect(ensureWinePrefix(prefix, wine.env)).rejects.toThrow(/wineboot/);
    expect(wine.calls().filter((call) => call.startsWith('wineboot'))).toHaveLength(3);
    expect(existsSync(path.join(prefix, '.farebox-ready'))).toBe(false);
  });
});
