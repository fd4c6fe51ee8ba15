import type { ServerResponse } from 'node:http';

/** Bytes a handler wrote straight to the response (streams), up to a bound. */
export interface ResponseCapture {
  /** The text written, or undefined once it exceeded the bound. */
  text(): string | undefined;
  /** Bytes written in all. */
  bytes(): number;
  /** Stops capturing and restores the response. */
  stop(): void;
}

/**
 * Tees what is written to `res` (an SSE stream committed by a handler) into memory, up to
 * `maxBytes`; past it only the count goes on, so a huge stream costs no memory.
 */
export function captureWrites(res: ServerResponse, maxBytes: number): ResponseCapture {
  const chunks: Buffer[] = [];
  let bytes = 0;
  const write = res.write;
  const end = res.end;
  const keep = (chunk: unknown): void => {
    if (chunk === undefined || chunk === null || typeof chunk === 'function') return;
    const buf = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : Buffer.from(chunk as Uint8Array);
    bytes += buf.length;
    if (bytes <= maxBytes) chunks.push(buf);
  };
  res.write = function (this: ServerResponse, chunk: unknown, ...rest: unknown[]) {
    keep(chunk);
    return (write as (...a: unknown[]) => boolean).call(this, chunk, ...rest);
  } as typeof res.write;
  res.end = function (this: ServerResponse, chunk?: unknown, ...rest: unknown[]) {
    keep(chunk);
    return (end as (...a: unknown[]) => ServerResponse).call(this, chunk, ...rest);
  } as typeof res.end;
  return {
    text: () => (bytes > maxBytes ? undefined : Buffer.concat(chunks).toString('utf8')),
    bytes: () => bytes,
    stop: () => {
      res.write = write;
      res.end = end;
    },
  };
}
