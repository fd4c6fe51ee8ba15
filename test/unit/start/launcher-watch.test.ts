import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { launcherChain, watchLaunchers } from '../../../scripts/start/launcher-watch.js';
import { refOf } from '../../../scripts/start/process-identity.js';

const children: ChildProcess[] = [];
afterEach(() => {
  vi.useRealTimers();
  for (const child of children.splice(0)) child.kill('SIGKILL');
});

/** Runs `script` in a node whose ancestors are given by the bash line; returns what it printed. */
function chainSeenThrough(bashLine: string): { chain: number[]; pids: Record<string, number> } {
  const script = `const { launcherChain } = await import(${JSON.stringify(new URL('../../../scripts/start/launcher-watch.ts', import.meta.url).href)});
const chain = launcherChain().map((r) => r.pid);
const fs = await import('node:fs');
const ppid = (pid) => Number(fs.readFileSync('/proc/' + pid + '/stat', 'utf8').split(') ')[1].split(' ')[1]);
console.log(JSON.stringify({ chain, pids: { parent: ppid(process.pid), grandparent: ppid(ppid(process.pid)) } }));`;
  const out = spawnSync('bash', ['-c', bashLine], { env: { ...process.env, PROBE: script }, encoding: 'utf8' });
  expect(out.status, out.stderr).toBe(0);
  return JSON.parse(out.stdout.trim()) as { chain: number[]; pids: Record<string, number> };
}

const probe = `${JSON.stringify(process.execPath)} --import tsx --input-type=module -e "$PROBE"`;

describe('launcherChain', () => {
  it('runs up to the npm that launched the process, through the shell between them', () => {
    // `exec -a` names the middle bash "npm start", as npm's own process title reads; `; true`
    // keeps each bash from replacing itself with its command.
    const { chain, pids } = chainSeenThrough(`exec -a "npm start" bash -c 'bash -c '"'"'${probe}; true'"'"'; true'`);
    expect(chain).toEqual([pids.parent, pids.grandparent]);
  });

  it('is only the parent when no npm is among the ancestors', () => {
    const { chain, pids } = chainSeenThrough(`bash -c '${probe}; true'`);
    expect(chain).toEqual([pids.parent]);
  });
});

describe('watchLaunchers', () => {
  it('calls back once when a launcher has ended, and not before', async () => {
    vi.useFakeTimers();
    const launcher = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    children.push(launcher);
    const onGone = vi.fn();
    watchLaunchers([refOf(process.pid), refOf(launcher.pid ?? 0)], onGone, 100);
    vi.advanceTimersByTime(300);
    expect(onGone).not.toHaveBeenCalled();
    launcher.kill('SIGKILL');
    await new Promise((resolve) => launcher.once('exit', resolve));
    vi.advanceTimersByTime(500);
    expect(onGone).toHaveBeenCalledTimes(1);
  });

  it('watches nothing when there is no launcher to watch', () => {
    vi.useFakeTimers();
    const onGone = vi.fn();
    watchLaunchers([], onGone, 100);
    vi.advanceTimersByTime(1_000);
    expect(onGone).not.toHaveBeenCalled();
  });
});
