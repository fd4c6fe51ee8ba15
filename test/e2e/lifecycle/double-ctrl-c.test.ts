import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../helpers/spawn-web.js';
import { waitFor } from '../../helpers/wait-for.js';
import { markedProcesses, type MarkedProcess } from './marked-processes.js';
import { startNpm, type NpmStart } from './npm-start.js';
import { makeScratchCheckout, type ScratchCheckout } from './scratch-checkout.js';

/** Set in the environment of the `npm start` under test; everything it starts inherits it. */
const MARK = 'FAREBOX_TEST_RUN';
/** Later than one keypress delivered twice (terminal and npm), so the launcher takes it as a second. */
const SECOND_CTRL_C_AFTER_MS = 1_500;
/** Enough for SIGKILLed processes to be gone; what Wine was left running takes seconds to end. */
const GONE_MS = 1_000;

describe('a second Ctrl-C during npm start', () => {
  let checkout: ScratchCheckout;
  let start: NpmStart | undefined;
  const mark = randomUUID();
  const ours = (): MarkedProcess[] => markedProcesses(MARK, mark);

  beforeAll(() => {
    checkout = makeScratchCheckout();
    // Its own Wine prefix, made by this start: no other start or test shares its Wine server,
    // so every Wine process carrying the mark was started for this start, and is its to stop.
    rmSync(path.join(checkout.dir, '.farebox', 'wine'), { force: true });
  });
  afterAll(() => {
    start?.kill();
    for (const p of ours()) {
      try {
        process.kill(p.pid, 'SIGKILL');
      } catch {
        // gone since it was listed
      }
    }
    checkout.remove();
  });

  it('while the Wine prefix is being made stops wineboot and the Wine server and services it started', async () => {
    start = startNpm(checkout.dir, { env: { PORT: String(await freePort()), [MARK]: mark } });
    const exited = start.exited;
    await waitFor('wineboot to be making the Wine prefix', () => ours().some((p) => p.command.includes('wineboot')), {
      timeoutMs: 40_000,
      abandonWhen: exited,
      detail: start.output,
    });
    // The first stop waits for the stores to be up, which a new prefix delays by ~10 s: the
    // moment a user presses Ctrl-C again.
    start.interrupt();
    await sleep(SECOND_CTRL_C_AFTER_MS);
    start.interrupt();
    await waitFor('npm start to exit', () => start?.hasExited(), { timeoutMs: 10_000, detail: start.output });
    const left = await waitFor('nothing of the start to run', () => ours().length === 0, { timeoutMs: GONE_MS }).then(
      () => [],
      () => ours(),
    );
    expect(left, 'processes of the start still running (ppid 1: orphans under init)').toEqual([]);
    expect(start.output()).toMatch(/stopping now: killing/);
  }, 60_000);
});
