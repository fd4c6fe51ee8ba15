import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { acquireDataLock, LOCK_FILE, type OwnerRecord } from '../../../scripts/start/data-lock.js';
import { stopLeftovers } from '../../../scripts/start/leftovers.js';
import { isRunning, refOf } from '../../../scripts/start/process-identity.js';

const children: ChildProcess[] = [];
const sleeper = (): ChildProcess => {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  children.push(child);
  return child;
};
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
});

const folder = (): string => mkdtempSync(path.join(tmpdir(), 'fbx-lock-'));
const holderFile = (dir: string, record: OwnerRecord): void => writeFileSync(path.join(dir, LOCK_FILE), JSON.stringify(record));
const noCleanUp = async (): Promise<void> => undefined;

describe('data folder lock', () => {
  it('is taken when free, records this process and the port, and is given back', async () => {
    const dir = folder();
    const outcome = await acquireDataLock({ dataDir: dir, port: 8123, log: () => undefined, cleanUp: noCleanUp });
    expect(outcome.kind).toBe('owned');
    const record = JSON.parse(readFileSync(path.join(dir, LOCK_FILE), 'utf8')) as OwnerRecord;
    expect(record).toMatchObject({ pid: process.pid, port: 8123, state: 'starting' });
    if (outcome.kind === 'owned') outcome.lock.release();
    expect(existsSync(path.join(dir, LOCK_FILE))).toBe(false);
  });

  it('is refused while a live owner runs, naming its pid and port', async () => {
    const dir = folder();
    const owner = sleeper();
    holderFile(dir, { ...refOf(owner.pid ?? 0), port: 9000, state: 'running', processes: [] });
    const outcome = await acquireDataLock({ dataDir: dir, port: 8123, log: () => undefined, cleanUp: noCleanUp });
    expect(outcome).toMatchObject({ kind: 'busy', stopping: false, holder: { pid: owner.pid, port: 9000 } });
  });

  it('waits for an owner that is stopping, then is taken', async () => {
    const dir = folder();
    const owner = sleeper();
    holderFile(dir, { ...refOf(owner.pid ?? 0), port: 9000, state: 'stopping', processes: [] });
    const said: string[] = [];
    const taking = acquireDataLock({ dataDir: dir, port: 8123, log: (m) => said.push(m), cleanUp: noCleanUp });
    await new Promise((resolve) => setTimeout(resolve, 600));
    unlinkSync(path.join(dir, LOCK_FILE)); // the owner finished stopping
    expect((await taking).kind).toBe('owned');
    expect(said.join('\n')).toContain(`waiting for the previous npm start (pid ${owner.pid}) to finish stopping`);
  });

  it('gives up waiting for an owner that stays stopping past the bound', async () => {
    const dir = folder();
    const owner = sleeper();
    holderFile(dir, { ...refOf(owner.pid ?? 0), port: 9000, state: 'stopping', processes: [] });
    const outcome = await acquireDataLock({ dataDir: dir, port: 8123, log: () => undefined, cleanUp: noCleanUp, stoppingWaitMs: 300 });
    expect(outcome).toMatchObject({ kind: 'busy', stopping: true });
  });

  it('replaces a dead owner after stopping the processes it recorded, by pid', async () => {
    const dir = folder();
    const dead = sleeper();
    const deadRef = refOf(dead.pid ?? 0);
    dead.kill('SIGKILL');
    await once(dead, 'exit');
    const left = sleeper();
    const leftRef = refOf(left.pid ?? 0);
    holderFile(dir, { ...deadRef, port: 9000, state: 'running', processes: [{ ...leftRef, name: 'web' }] });
    const outcome = await acquireDataLock({ dataDir: dir, port: 8123, log: () => undefined, cleanUp: (d) => stopLeftovers(d, () => undefined) });
    expect(outcome.kind).toBe('owned');
    expect(isRunning(leftRef)).toBe(false);
    if (outcome.kind === 'owned') outcome.lock.release();
  });

  it('does not take a reused pid for the owner that recorded it', () => {
    const self = refOf(process.pid);
    expect(isRunning(self)).toBe(true);
    if (self.startTime !== undefined) expect(isRunning({ pid: process.pid, startTime: `${self.startTime}1` })).toBe(false);
  });
});
