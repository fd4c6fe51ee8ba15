import type { Redis as SingleRedis } from 'ioredis';

type Chunk = string | Uint8Array;
interface WritableInternals {
  _write: (chunk: Chunk, ...rest: unknown[]) => void;
  _writev?: (chunks: ReadonlyArray<{ chunk: Chunk }>, ...rest: unknown[]) => void;
}

/** Counts what a client's socket hands the kernel at once: each `_write` or `_writev` call. */
export interface WriteCounter {
  /** Calls so far (only those whose bytes hold `mentioning`, when it was given). */
  count(): number;
  /** Puts the socket's own methods back. */
  stop(): void;
}

/**
 * Counts the socket-level writes of a single-node client (a cluster's node included). With
 * `mentioning`, only writes carrying that text count, so commands other parts of the client
 * send meanwhile (a cluster's slot refresh) do not.
 */
export function countWrites(client: SingleRedis, mentioning?: string): WriteCounter {
  const socket = client.stream as unknown as WritableInternals;
  const { _write: write, _writev: writev } = socket;
  let n = 0;
  const note = (chunks: readonly Chunk[]) => {
    if (mentioning === undefined || chunks.some((c) => Buffer.from(c).includes(mentioning))) n++;
  };
  socket._write = (chunk, ...rest) => {
    note([chunk]);
    write.call(socket, chunk, ...rest);
  };
  if (writev) {
    socket._writev = (chunks, ...rest) => {
      note(chunks.map((c) => c.chunk));
      writev.call(socket, chunks, ...rest);
    };
  }
  return {
    count: () => n,
    stop: () => {
      socket._write = write;
      if (writev) socket._writev = writev;
    },
  };
}
