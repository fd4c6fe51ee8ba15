/** How a bounded piece of work ended. */
export type BoundedOutcome = 'done' | 'timed out' | 'failed';

/**
 * Waits for `work` at most `ms`. The work is not cancelled (JavaScript cannot), so callers
 * follow a timeout with something forceful: a hard disconnect, or the process exit itself.
 */
export async function within(work: Promise<unknown>, ms: number): Promise<BoundedOutcome> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<BoundedOutcome>((resolve) => {
    timer = setTimeout(() => resolve('timed out'), Math.max(0, ms));
  });
  const settled = work.then(
    (): BoundedOutcome => 'done',
    (): BoundedOutcome => 'failed',
  );
  try {
    return await Promise.race([settled, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
