import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { shouldReturnMemory, type MemorySample } from '../../../../src/platform/runtime/index.js';
import { agentBin } from '../../../helpers/agents/agent-install.js';

const MIB = 2 ** 20;
const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const CHILD = fileURLToPath(new URL('../../../helpers/idle-memory-child.ts', import.meta.url));

const idle: MemorySample = { rss: 900 * MIB, heapTotal: 200 * MIB, utilization: 0.02, idleMs: 60_000 };

describe('shouldReturnMemory', () => {
  it('returns memory held outside the heap once the process is idle', () => {
    expect(shouldReturnMemory(idle, 0)).toBe(true);
  });

  it('waits while the loop is busy', () => {
    expect(shouldReturnMemory({ ...idle, utilization: 0.5 }, 0)).toBe(false);
  });

  it('waits until no new work has started for the quiet window', () => {
    expect(shouldReturnMemory({ ...idle, idleMs: 10_000 }, 0)).toBe(false);
    expect(shouldReturnMemory({ ...idle, idleMs: 29_999 }, 0)).toBe(false);
    expect(shouldReturnMemory({ ...idle, idleMs: 30_000 }, 0)).toBe(true);
    expect(shouldReturnMemory({ ...idle, idleMs: 2_000 }, 0, 1_000)).toBe(true);
  });

  it('counts only growth since the last return, and not the heap itself', () => {
    expect(shouldReturnMemory(idle, 650 * MIB)).toBe(false);
    expect(shouldReturnMemory({ ...idle, heapTotal: 800 * MIB }, 0)).toBe(false);
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
  it('gives a burst back once the process is quiet; without it the burst stays resident', async () => {
    const off = await runChild(agentBin.node, 'off');
    const on = await runChild(agentBin.node, 'on');
    expect(off.returned).toBe(false);
    // Without a return the pages stay: the burst is still resident after five quiet seconds.
    expect(off.burst - off.quiet, off.output).toBeLessThan(64 * MIB);
    expect(on.returned, on.output).toBe(true);
    expect(on.burst - on.quiet, on.output).toBeGreaterThan(128 * MIB);
  }, 30_000);

  it('holds the return while new work keeps starting, however light', async () => {
    const working = await runChild(agentBin.node, 'working');
    expect(working.returned, working.output).toBe(false);
  }, 30_000);
});
