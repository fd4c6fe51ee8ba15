import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { programsInPrefix } from '../../../scripts/services/wine-programs.js';

const root = mkdtempSync(path.join(tmpdir(), 'wine-programs-'));
const prefix = path.join(root, 'prefix');
const linked = path.join(root, 'linked');
const other = path.join(root, 'other');
mkdirSync(prefix);
mkdirSync(other);
symlinkSync(prefix, linked);

const children: ChildProcess[] = [];
/** A long-running process started with WINEPREFIX set, under the first argument `argv0`. */
async function program(winePrefix: string, argv0: string): Promise<number> {
  const child = spawn('sleep', ['60'], { argv0, env: { PATH: process.env.PATH, WINEPREFIX: winePrefix }, stdio: 'ignore' });
  children.push(child);
  await once(child, 'spawn');
  return child.pid as number;
}
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('programs running in a Wine prefix', () => {
  it('finds programs by their WINEPREFIX, through a symlink, and not Wine’s own processes', async () => {
    const direct = await program(prefix, '/opt/mongod.exe');
    const viaLink = await program(linked, '/tmp/checkout/.farebox/bin/mongod.exe');
    await program(prefix, 'C:\\windows\\system32\\services.exe');
    await program(prefix, '/usr/lib/wine/wineserver64');
    await program(other, '/opt/mongod.exe');
    expect((await programsInPrefix(prefix)).sort()).toEqual([direct, viaLink].sort());
    expect(await programsInPrefix(linked)).toHaveLength(2);
  });

  it('finds none once they exited', async () => {
    const pid = await program(prefix, '/opt/mongod.exe');
    expect(await programsInPrefix(prefix)).toEqual([pid]);
    const child = children[0] as ChildProcess;
    child.kill('SIGKILL');
    await once(child, 'exit');
    expect(await programsInPrefix(prefix)).toEqual([]);
  });
});
