import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

const MODULE = new URL('../../../../src/platform/runtime/jit-tiering.ts', import.meta.url).pathname;

describe('the web’s JIT tiering setting', () => {
  it('loads on the running Node without a word on stderr, whether its V8 knows the flag or not', () => {
    const run = spawnSync(process.execPath, ['--import', 'tsx', '-e', `await import(${JSON.stringify(MODULE)}); console.log('loaded');`], { encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.stdout.trim()).toBe('loaded');
    expect(run.status).toBe(0);
  });
});
