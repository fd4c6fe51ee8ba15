import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { idleMemoryStep, type HeldMemory, type MemorySample } from '../../../../src/platform/runtime/index.js';
import { agentBin } from '../../../helpers/agents/agent-install.js';

const MIB = 2 ** 20;
const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const CHILD = fileURLToPath(new URL('../../../helpers/idle-memory-child.ts', import.meta.url));

const idle: MemorySample = { rss: 900 * MIB, heapTotal: 200 * MIB, utilization: 0.02, idleMs: 60_000 };
const fresh: HeldMemory = { outside: 0, heap: 0 };

describe('idleMemoryStep', () => {
  it('returns memory held outside the heap once the process is idle', () => {
    expect(idleMemoryStep(idle, fresh)).toBe('return');
  });

  it('waits while the loop is busy', () => {
    expect(idleMemoryStep({ ...idle, utilization: 0.5 }, fresh)).toBe('wait');
  });

  it('waits until no new work has started for the quiet window', () => {
    expect(idleMemoryStep({ ...idle, idleMs: 10_000 }, fresh)).toBe('wait');
    expect(idleMemoryStep({ ...idle, idleMs: 29_999 }, fresh)).toBe('wait');
    expect(idleMemoryStep({ ...idle, idleMs: 30_000 }, fresh)).toBe('return');
    expect(idleMemoryStep({ ...idle, idleMs: 2_000 }, fresh, 1_000)).toBe('return');
  });

  it('counts only growth since its last return, and of the heap since its last collection', () => {
    expect(idleMemoryStep(idle, { outside: 650 * MIB, heap: 200 * MIB })).toBe('wait');
    expect(idleMemoryStep({ ...idle, heapTotal: 300 * MIB }, { outside: 600 * MIB, heap: 200 * MIB })).toBe('wait');
  });

  it('collects first when the heap itself grew, since the garbage of a burst may still be in it', () => {
    // A burst that ended before a full collection ran: everything is still inside the heap.
    const uncollected = { ...idle, rss: 700 * MIB, heapTotal: 640 * MIB };
    expect(idleMemoryStep(uncollected, fresh)).toBe('collect');
    expect(idleMemoryStep({ ...uncollected, utilization: 0.5 }, fresh)).toBe('wait');
    // After that collection the heap is the baseline: live objects cost that one collection only.
    expect(idleMemoryStep(uncollected, { outside: 60 * MIB, heap: 640 * MIB })).toBe('wait');
  });
});

/** Runs the child under the given Node; its printed RSS figures and whether it logged a return. */
async function runChild(node: string, mode: 'on' | 'off' | 'working'): Promise<{ burst: number; quiet: number; returned: boolean; output: string }> {
  const child = spawn(node, ['--import', 'tsx', CHILD, mode], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  expect(code, output).toBe(0);
  const figure = (name: string): number => Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(output)?.[1] ?? NaN);
  return { burst: figure('BURST'), quiet: figure('QUIET'), returned: output.includes('returned idle memory'), output };
}

// The page pool this works around is V8's in Node 24 (the production runtime); the agent
// clients' Node 24 runs the child where it is installed.
describe.skipIf(!existsSync(agentBin.node))('returnIdleMemory (Node 24)', () => {
  // Whether the burst's last full collection ran before it went quiet depends on the scheduler
  // (on a loaded machine it often has not): either way the memory comes back.
  it('gives a burst back once the process is quiet; without it the burst stays resident', async () => {
    const off = await runChild(agentBin.node, 'off');
    const on = await runChild(agentBin.node, 'on');
    expect(off.returned).toBe(false);
    // Without a return the pages stay: the burst is still resident after five quiet seconds.
    expect(off.burst - off.quiet, off.output).toBeLessThan(64 * MIB);
    expect(on.returned, on.output).toBe(true);
    expect(on.burst - on.quiet, on.output).toBeGreaterThan(128 * MIB);
  }, 60_000);

  it('holds the return while new work keeps starting, however light', async () => {
    const working = await runChild(agentBin.node, 'working');
    expect(working.returned, working.output).toBe(false);
  }, 30_000);
});
