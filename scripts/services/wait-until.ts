import { setTimeout as sleep } from 'node:timers/promises';

/** Options for {@link waitUntil}. */
export interface WaitUntilOptions {
  /** What we wait for, used in the timeout error. */
  readonly what: string;
  readonly timeoutMs: number;
  readonly intervalMs?: number;
  /** Checked each round; a non-empty string aborts the wait with that reason (e.g. a dead process). */
  readonly abortReason?: () => string | undefined;
}

/**
 * Polls `check` until it returns true. Errors thrown by `check` count as "not yet", because
 * services refuse connections while they boot; the last one is kept for the timeout message.
 */
export async function waitUntil(check: () => Promise<boolean>, options: WaitUntilOptions): Promise<void> {
  const deadline = Date.now() + options.timeoutMs;
  let lastError = '';
  for (;;) {
    const aborted = options.abortReason?.();
    if (aborted) throw new Error(`${options.what}: ${aborted}`);
    try {
      if (await check()) return;
    } catch (error) {
      lastError = error instanceof Error ? error.message : String(error);
    }
    if (Date.now() >= deadline) {
      const detail = lastError ? ` (last error: ${lastError})` : '';
      throw new Error(`timed out after ${options.timeoutMs} ms waiting for ${options.what}${detail}`);
    }
    await sleep(options.intervalMs ?? 100);
  }
}
