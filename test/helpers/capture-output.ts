import type { ChildProcess } from 'node:child_process';

/**
 * Keeps the last `limit` characters a child wrote to stdout and stderr (for assertion messages
 * and log checks); `onData` sees the tail after each write.
 */
export function captureOutput(child: ChildProcess, limit: number, onData?: (tail: string) => void): () => string {
  let captured = '';
  const append = (chunk: Buffer): void => {
    captured = (captured + chunk.toString('utf8')).slice(-limit);
    onData?.(captured);
  };
  child.stdout?.on('data', append);
  child.stderr?.on('data', append);
  return () => captured;
}
