import { setTimeout as sleep } from 'node:timers/promises';

/** How {@link waitFor} polls. */
export interface WaitForOptions {
  /** Give up after this long (default 30 s). */
  timeoutMs?: number;
  /** Pause between probes (default 50 ms). */
  intervalMs?: number;
  /** More to say when giving up (a process's output, say). */
  detail?: () => string;
  /**
   * Ends the wait at once with an error when it resolves (a process that exited: nothing
   * it was meant to bring about can happen any more).
   */
  abandonWhen?: Promise<unknown>;
  /** Counts a probe that throws as "not yet" rather than failing the wait (default false). */
  retryErrors?: boolean;
}

/** A probe's answer: `undefined` or `false` means "not yet"; anything else ends the wait. */
type Probed<T> = T | undefined | false;

/**
 * The one polling helper of the tests, for waiting on real processes and stores: probes until
 * the answer is neither `undefined` nor `false` and returns it, or throws naming `what`.
 * Tests of logic alone use vitest's fake timers instead.
 */
export async function waitFor<T>(what: string, probe: () => Probed<T> | Promise<Probed<T>>, options: WaitForOptions = {}): Promise<T> {
  const { timeoutMs = 30_000, intervalMs = 50, detail, abandonWhen, retryErrors = false } = options;
  const deadline = Date.now() + timeoutMs;
  let abandoned = false;
  void abandonWhen?.then(
    () => (abandoned = true),
    () => (abandoned = true),
  );
  const more = () => (detail ? `\n${detail()}` : '');
  for (;;) {
    if (abandoned) throw new Error(`gave up waiting for ${what}: its process exited${more()}`);
    const value = await Promise.resolve()
      .then(probe)
      .catch((err: unknown) => {
        if (retryErrors) return undefined;
        throw err;
      });
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${more()}`);
    await sleep(intervalMs);
  }
}
