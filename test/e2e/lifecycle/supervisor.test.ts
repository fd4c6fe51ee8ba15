import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { Supervisor } from '../../../scripts/start/supervisor.js';
import { waitFor } from '../../helpers/wait-for.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/**
 * A child that appends "<name>:start", "<name>:term" and "<name>:exit" to a journal; it takes
 * 300 ms to stop after SIGTERM, like a process draining. `crashFirst` makes its first run die.
 */
function childScript(journal: string, name: string, crashFirst: boolean): string {
  return `
    const fs = require('node:fs');
    const note = (e) => fs.appendFileSync(${JSON.stringify(journal)}, ${JSON.stringify(name)} + ':' + e + '\\n');
    const marker = ${JSON.stringify(journal)} + '.${name}.crashed';
    note('start');
    if (${crashFirst} && !fs.existsSync(marker)) { fs.writeFileSync(marker, ''); note('crash'); process.exit(3); }
    process.on('SIGTERM', () => { note('term'); setTimeout(() => { note('exit'); process.exit(0); }, 300); });
    setInterval(() => undefined, 1000);
  `;
}

const spawnScript = (code: string): ChildProcess => spawn(process.execPath, ['-e', code], { stdio: 'ignore' });
const journalLines = (file: string): string[] => readFileSync(file, 'utf8').trim().split('\n');
const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('npm start supervisor', () => {
  let supervisor: Supervisor | undefined;
  afterEach(() => supervisor?.killAll());

  it('restarts a crashed child with the others untouched, then stops all in order', async () => {
    const journal = path.join(mkdtempSync(path.join(tmpdir(), 'fbx-sup-')), 'journal');
    writeFileSync(journal, '');
    supervisor = new Supervisor(
      [
        { name: 'web', spawn: () => spawnScript(childScript(journal, 'web', true)) },
        { name: 'worker', spawn: () => spawnScript(childScript(journal, 'worker', false)) },
      ],
      { backoffMs: 100 },
    );
    supervisor.start();
    await waitFor('the web restart', () => journalLines(journal).filter((l) => l === 'web:start').length === 2, { timeoutMs: 20_000 });
    const workerPid = supervisor.child('worker')?.pid;
    expect(journalLines(journal).filter((l) => l === 'worker:start')).toHaveLength(1);
    await supervisor.stop();
    const stops = journalLines(journal).filter((l) => /:(term|exit)$/.test(l));
    expect(stops).toEqual(['web:term', 'web:exit', 'worker:term', 'worker:exit']);
    expect(workerPid !== undefined && alive(workerPid)).toBe(false);
  });

  it('gives up after too many crashes in a row', async () => {
    let spawned = 0;
    let gaveUp = '';
    supervisor = new Supervisor(
      [{ name: 'web', spawn: () => (spawned += 1, spawnScript('process.exit(1)')) }],
      { backoffMs: 10, maxRestarts: 3, onGiveUp: (name) => (gaveUp = name) },
    );
    supervisor.start();
    await waitFor('giving up', () => gaveUp !== '', { timeoutMs: 20_000 });
    expect(gaveUp).toBe('web');
    expect(spawned).toBe(4);
  });

  it('leaves no child running when the supervisor process itself crashes', async () => {
    const script = `
      import { spawn } from 'node:child_process';
      import { Supervisor } from './scripts/start/supervisor.ts';
      const s = new Supervisor([{ name: 'web', spawn: () => spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore', detached: true }) }]);
      s.start();
      console.log('child ' + s.child('web').pid);
      setTimeout(() => { throw new Error('supervisor bug'); }, 200);
    `;
    const parent = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    parent.stdout?.on('data', (d: Buffer) => (out += d.toString()));
    const [code] = (await once(parent, 'exit')) as [number | null];
    const pid = Number(/child (\d+)/.exec(out)?.[1]);
    expect(code).not.toBe(0);
    expect(pid).toBeGreaterThan(0);
    await waitFor('the orphan to be gone', () => !alive(pid), { timeoutMs: 5_000 });
  });
});
