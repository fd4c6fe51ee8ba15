import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../helpers/spawn-web.js';
import { checkoutProcesses, type CheckoutProcess } from './checkout-processes.js';
import { gatewayReady, outputTail, startNpm, waitFor, type NpmStart, type StartNpmOptions } from './npm-start.js';
import { makeScratchCheckout, type ScratchCheckout } from './scratch-checkout.js';

/** Bounds: a first start (mongod under Wine) on a busy machine, and a full stop. */
const UP_MS = 180_000;
const STOP_MS = 30_000;
const TEST_MS = 600_000;

/**
 * The tests run in order in one checkout, so each test's first start is also the later start
 * after what the test before it left behind (a closed pipe, a stopped release, a failed
 * release, …): it must come up, or reach the step it waits for, in that state.
 */
describe.sequential('npm start in a scratch checkout: no orphans, no spinning, one owner per data folder', () => {
  let checkout: ScratchCheckout;
  const started: NpmStart[] = [];

  beforeAll(() => {
    checkout = makeScratchCheckout();
  });
  afterEach(() => {
    // A failed test must not leave its processes to the next one.
    for (const start of started.splice(0)) start.kill();
    for (const p of checkoutProcesses(checkout.dir)) process.kill(p.pid, 'SIGKILL');
  });
  afterAll(() => checkout.remove());

  const launch = (port: number, options: Omit<StartNpmOptions, 'env'> & { env?: Record<string, string> } = {}): NpmStart => {
    const start = startNpm(checkout.dir, { ...options, env: { PORT: String(port), ...options.env } });
    started.push(start);
    return start;
  };

  /** Waits for `start` to say its gateway is up and for the gateway to answer; fails early if it exited. */
  const up = (start: NpmStart, port: number): Promise<void> =>
    waitFor('the gateway to answer /readyz', async () => {
      if (start.hasExited()) throw new Error(`npm start exited before the gateway was up:\n${outputTail(start.output())}`);
      return start.output().includes('console on') && gatewayReady(port);
    }, UP_MS, start.output);

  /** Waits up to STOP_MS for every process of the checkout to be gone; returns those left. */
  const leftovers = async (): Promise<CheckoutProcess[]> => {
    await waitFor('the checkout to have no process', () => checkoutProcesses(checkout.dir).length === 0, STOP_MS).catch(() => undefined);
    return checkoutProcesses(checkout.dir);
  };

  /** SIGTERM to a running start; its exit code and what it left behind. */
  const stop = async (start: NpmStart): Promise<{ exit: string; left: CheckoutProcess[] }> => {
    const sent = Date.now();
    start.terminate();
    const left = await leftovers();
    // For the record only (no timing assertion): how long the checkout took to be empty.
    const exit = start.hasExited() ? `${await start.exited}, all gone after ${((Date.now() - sent) / 1000).toFixed(1)} s` : 'still running';
    return { exit, left };
  };

  /** A later start in the same checkout comes up and stops cleanly (after the last test). */
  const nextStartWorks = async (): Promise<string> => {
    const port = await freePort();
    const next = launch(port);
    await up(next, port);
    const { left } = await stop(next);
    expect(left, 'processes left by the later start').toEqual([]);
    return 'came up (gateway answered /readyz) and stopped, nothing left';
  };

  const record = (sequence: string, left: CheckoutProcess[], second = 'the next test starts in this state'): void =>
    console.log(`[${sequence}] left behind: ${JSON.stringify(left)}; second start: ${second}`);

  it('output piped into a reader that exits once the gateway is up, then SIGTERM: everything exits', async () => {
    const port = await freePort();
    const first = launch(port, { closeOutputAfter: 'console on' });
    await up(first, port);
    const { exit, left } = await stop(first);
    expect(left, 'processes left after SIGTERM with a closed output pipe').toEqual([]);
    expect(exit).not.toBe('still running');
    record(`closed output pipe, npm ${exit}`, left);
  }, TEST_MS);

  it('SIGTERM during the release step stops the stores and the release step', async () => {
    const port = await freePort();
    const first = launch(port);
    const releasing = (): boolean => checkoutProcesses(checkout.dir).some((p) => p.command.includes('scripts/release.ts'));
    await waitFor('the release step to run', releasing, UP_MS, first.output);
    const { exit, left } = await stop(first);
    expect(left, 'processes left after SIGTERM during release').toEqual([]);
    expect(first.output()).not.toContain('start failed');
    expect(first.output()).toContain('stopping web, then worker, then local services');
    expect(exit).not.toBe('still running');
    record(`SIGTERM during release, npm ${exit}`, left);
  }, TEST_MS);

  it('a release step that fails stops the stores and exits non-zero', async () => {
    const port = await freePort();
    const first = launch(port, { env: { CATALOG_FILE: path.join(checkout.dir, 'no-such-catalog.json') } });
    await waitFor('npm start to exit', () => first.hasExited(), UP_MS, first.output);
    const left = await leftovers();
    expect(left, 'processes left after a failed release').toEqual([]);
    const exit = await first.exited;
    expect(exit).not.toBe('code 0');
    expect(first.output()).toContain('start failed: scripts/release.ts exited with 1');
    record(`failing release, npm ${exit}`, left);
  }, TEST_MS);

  it('two starts at once on one data folder: one runs, the other names it and exits 2', async () => {
    const port = await freePort();
    const pair = [launch(port), launch(port)];
    await waitFor('one of the two to exit', () => pair.some((s) => s.hasExited()), UP_MS);
    const loser = pair.find((s) => s.hasExited()) as NpmStart;
    const winner = pair.find((s) => s !== loser) as NpmStart;
    expect(await loser.exited, loser.output()).toBe('code 2');
    await up(winner, port);
    const lock = JSON.parse(readFileSync(path.join(checkout.dir, '.farebox/data/npm-start.lock'), 'utf8')) as { pid: number };
    const line = loser.output().split('\n').find((l) => l.includes('already running')) ?? '';
    expect(line).toContain(`pid ${lock.pid}, gateway on http://localhost:${port}/v1`);
    expect(checkoutProcesses(checkout.dir).filter((p) => p.command.includes('mongod.exe'))).toHaveLength(1);
    const { exit, left } = await stop(winner);
    expect(left, 'processes left after stopping the one that ran').toEqual([]);
    record(`two at once, the one that ran: npm ${exit}`, left, `exit 2: ${line.trim()}`);
  }, TEST_MS);

  it('SIGTERM to npm alone (not its group) still stops everything it started', async () => {
    const port = await freePort();
    const first = launch(port);
    await up(first, port);
    const sent = Date.now();
    first.terminateNpmOnly();
    const left = await leftovers();
    expect(left, 'processes left after SIGTERM to npm alone').toEqual([]);
    expect(first.output()).toContain('the npm that started this ended without stopping it: stopping');
    record(`SIGTERM to npm alone, all gone after ${((Date.now() - sent) / 1000).toFixed(1)} s`, left);
  }, TEST_MS);

  it('a start right after the previous one was sent SIGTERM waits for it, then runs', async () => {
    const port = await freePort();
    const first = launch(port);
    await up(first, port);
    first.terminate();
    const second = launch(port);
    await waitFor('the first start to exit', () => first.hasExited(), STOP_MS, first.output);
    await up(second, port);
    const firstExit = await first.exited;
    const waited = second.output().split('\n').find((l) => l.includes('to finish stopping'));
    const { left } = await stop(second);
    expect(left, 'processes left after both').toEqual([]);
    record(`start right after SIGTERM, first npm ${firstExit}`, left, `came up${waited ? ` after "${waited.trim()}"` : ''}, stopped, nothing left`);
  }, TEST_MS);

  it('a start after the previous one was killed stops what that one left running, then runs', async () => {
    const port = await freePort();
    const first = launch(port);
    await up(first, port);
    // npm, tsx and the supervisor die at once; the stores, web and worker run on, orphaned.
    first.kill();
    await first.exited;
    const orphans = checkoutProcesses(checkout.dir).map((p) => p.pid);
    expect(orphans.length).toBeGreaterThan(0);
    const second = launch(port);
    await up(second, port);
    expect(second.output()).toContain('is gone; stopping what it left running');
    expect(checkoutProcesses(checkout.dir).filter((p) => orphans.includes(p.pid))).toEqual([]);
    const { left } = await stop(second);
    expect(left, 'processes left after the second start stopped').toEqual([]);
    record('start after a killed start', left, `stopped ${orphans.length} orphans by pid, came up, stopped, nothing left`);
  }, TEST_MS);

  it('a second Ctrl-C while the stores are still starting kills them at once, by pid', async () => {
    const port = await freePort();
    const first = launch(port);
    const mongod = (): CheckoutProcess | undefined => checkoutProcesses(checkout.dir).find((p) => p.command.includes('mongod.exe'));
    await waitFor('mongod to be started', () => mongod() !== undefined, UP_MS, first.output);
    // A mongod that hangs while starting: the first stop waits for it for as long as a start may
    // take, which is when a second Ctrl-C is wanted. (A mongod that starts stops in a second.)
    process.kill((mongod() as CheckoutProcess).pid, 'SIGSTOP');
    first.interrupt();
    // Later than the same keypress delivered twice (terminal and tsx), earlier than mongod is up.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    first.interrupt();
    const left = await leftovers();
    expect(left, 'processes left after two Ctrl-C').toEqual([]);
    expect(first.output()).toMatch(/stopping now: killing .*mongod \d+/);
    record(`second Ctrl-C, npm ${await first.exited}`, left, await nextStartWorks());
  }, TEST_MS);
});
