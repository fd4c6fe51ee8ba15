import { writeSync } from 'node:fs';

/** A line sink on a file descriptor that never throws and never blocks for long. */
export interface SafeWriter {
  /** Writes `text` whole, or drops it once the descriptor is gone. */
  write(text: string): void;
  /** True once a write failed for good (closed pipe, closed descriptor): later writes are dropped. */
  readonly closed: boolean;
}

/** A full pipe (reader alive but slow) is retried this often, 10 ms apart, before a line is dropped. */
const BUSY_RETRIES = 100;
const BUSY_WAIT_MS = 10;
const pause = new Int32Array(new SharedArrayBuffer(4));

const isBusy = (error: unknown): boolean => {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'EAGAIN' || code === 'EBUSY';
};

/**
 * Synchronous writes to `fd` (1 or 2) that cannot fail: a reader that went away (EPIPE), a
 * closed descriptor (EBADF) or any other error ends writing for good, quietly, so a process
 * whose output nobody reads any more carries on (and stops) as if nothing happened. Synchronous,
 * so the last line before an exit is written, and nothing is left to flush at exit.
 */
export function safeWriter(fd: number): SafeWriter {
  let closed = false;
  const writeAll = (bytes: Buffer): void => {
    let rest = bytes;
    let busy = 0;
    while (rest.length > 0) {
      try {
        rest = rest.subarray(writeSync(fd, rest));
      } catch (error) {
        if (isBusy(error) && busy < BUSY_RETRIES) {
          busy += 1;
          Atomics.wait(pause, 0, 0, BUSY_WAIT_MS);
          continue;
        }
        // A reader that stays full is a lost line; anything else is a descriptor gone for good.
        if (!isBusy(error)) closed = true;
        return;
      }
    }
  };
  return {
    write(text) {
      if (!closed) writeAll(Buffer.from(text));
    },
    get closed() {
      return closed;
    },
  };
}

/**
 * Makes `process.stdout` and `process.stderr` swallow their errors. Without a listener, a write
 * to a closed pipe (by `console.*` or a library) surfaces as an uncaught exception, and a handler
 * that reports it on the same stream fails again, in a loop.
 */
export function quietStdStreams(): void {
  for (const stream of [process.stdout, process.stderr]) {
    if (!stream.listeners('error').includes(ignore)) stream.on('error', ignore);
  }
}

function ignore(): void {
  // The stream is destroyed by the error; nothing else to do.
}
