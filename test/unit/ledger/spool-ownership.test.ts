import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const FIXTURE = 'test/fixtures/spool/spool-process.ts';
const LEASE_MS = 2_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Own PID namespaces where possible (root with unshare): both processes are really PID 1. */
const UNSHARE = spawnSync('unshare', ['--pid', '--fork', '--kill-child', 'true']).status === 0;

interface SpoolProcess {
  child: ChildProcess;
  pid: Promise<number>;
  appended: string[];
  adopted: string[];
}

const running: ChildProcess[] = [];

function start(mode: 'owner' | 'adopter', dir: string): SpoolProcess {
  const node = [process.execPath, '--import', 'tsx', FIXTURE, mode, dir, String(LEASE_MS)];
  // Without a PID namespace of its own, each process is told its pid is 1.
  const [command, ...args] = UNSHARE ? ['unshare', '--pid', '--fork', '--kill-child', ...node] : [...node, '1'];
  const child = spawn(command as string, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  running.push(child);
  const p: SpoolProcess = { child, pid: new Promise(() => undefined), appended: [], adopted: [] };
  let buffered = '';
  p.pid = new Promise((resolve) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) {
        const msg = JSON.parse(line) as { pid?: number; appended?: string; adopted?: string[] };
        if (msg.pid !== undefined) resolve(msg.pid);
        if (msg.appended) p.appended.push(msg.appended);
        if (msg.adopted) p.adopted.push(...msg.adopted);
      }
    });
  });
  return p;
}

async function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGKILL');
  await exited;
}

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map(kill));
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

describe('spool ownership across processes with the same pid', () => {
  it("never adopts a live owner's file, and adopts all of it once the owner is killed", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'fbx-spool-own-'));
    dirs.push(dir);
    const owner = start('owner', dir);
    const ownerPid = await owner.pid;
    const adopter = start('adopter', dir);
    expect(await adopter.pid).toBe(ownerPid);
    expect(ownerPid).toBe(1);
    // Three leases go by with both alive: the owner keeps appending, nothing is adopted.
    await sleep(3 * LEASE_MS);
    expect(owner.appended.length).toBeGreaterThan(10);
    expect(adopter.adopted).toEqual([]);
    await kill(owner.child);
    const durable = [...owner.appended];
    for (let i = 0; i < 100 && adopter.adopted.length < durable.length; i++) await sleep(100);
    // Every charge the owner had made durable is adopted, exactly once.
    for (const id of durable) expect(adopter.adopted.filter((a) => a === id), id).toHaveLength(1);
  }, 40_000);
});
