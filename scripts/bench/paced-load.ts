import { Pool } from 'undici';
import { sleep } from './latency-stats.js';

/** One fixed-rate run. */
export interface PacedLoadOptions {
  origin: string;
  path: string;
  /** Headers of every request, or a list used in turn (requests spread over several keys). */
  headers: Record<string, string> | ReadonlyArray<Record<string, string>>;
  body: string;
  /** Requests per second, sent on an even schedule (open loop). */
  rate: number;
  seconds: number;
  /** Connections the requests may use; more are queued, and that wait counts as latency. */
  connections: number;
  /**
   * A pool to send on, kept open by the caller across runs (its connections already made, as a
   * client fleet's are); without one, the run opens its own and closes it at the end.
   */
  pool?: Pool;
}

/** What a fixed-rate run saw. */
export interface PacedLoadResult {
  /** Latency of each 2xx answer (ms), measured from its scheduled send time. */
  latencies: number[];
  sent: number;
  non2xx: number;
  /** Latency of each non-2xx answer (ms), measured the same way. */
  refusals: number[];
  errors: number;
  /** Answers per second over the run. */
  achievedRate: number;
  /** Failed requests by error code (or message), so a report can say why they failed. */
  errorKinds: Record<string, number>;
  /**
   * How late the generator itself handed each request to its connection pool (ms after its due
   * time): lateness that is the generator's, not the server's, although it counts in `latencies`.
   */
  sendLag: number[];
}

/** A connection pool for paced runs: one request per connection at a time, connections kept open between runs. */
export function pacedPool(origin: string, connections: number): Pool {
  return new Pool(origin, { connections, pipelining: 1, keepAliveTimeout: 30_000 });
}

/**
 * Sends requests at a fixed rate on an even schedule, independent of how fast answers come
 * back (open loop), and times each from the moment it was due, so a slow server cannot hide
 * its queueing (no coordinated omission). Sub-millisecond resolution. Bounded by `rate ×
 * seconds` requests and a 10 s grace period for the last answers.
 */
export async function pacedLoad(options: PacedLoadOptions): Promise<PacedLoadResult> {
  const pool = options.pool ?? pacedPool(options.origin, options.connections);
  const total = Math.round(options.rate * options.seconds);
  const interval = 1000 / options.rate;
  const latencies: number[] = [];
  let non2xx = 0;
  const refusals: number[] = [];
  let errors = 0;
  const errorKinds: Record<string, number> = {};
  const sendLag: number[] = [];
  const inFlight = new Set<Promise<void>>();
  const headerSets = Array.isArray(options.headers) ? options.headers : [options.headers];
  const fire = (due: number, index: number): void => {
    sendLag.push(performance.now() - due);
    const headers = headerSets[index % headerSets.length] as Record<string, string>;
    const task = pool
      .request({ path: options.path, method: 'POST', headers, body: options.body, headersTimeout: 10_000, bodyTimeout: 10_000 })
      .then(async (res) => {
        await res.body.dump({ limit: 10 * 1024 * 1024 });
        if (res.statusCode >= 200 && res.statusCode < 300) latencies.push(performance.now() - due);
        else {
          non2xx += 1;
          refusals.push(performance.now() - due);
        }
      })
      .catch((err: unknown) => {
        errors += 1;
        const kind = (err as { code?: string }).code ?? (err instanceof Error ? err.message : String(err));
        errorKinds[kind] = (errorKinds[kind] ?? 0) + 1;
      })
      .finally(() => inFlight.delete(task));
    inFlight.add(task);
  };
  const started = performance.now() + 20;
  let sent = 0;
  try {
    while (sent < total) {
      const now = performance.now();
      while (sent < total && started + sent * interval <= now) {
        fire(started + sent * interval, sent);
        sent += 1;
      }
      await sleep(Math.max(0, Math.min(1, started + sent * interval - performance.now())));
    }
    await Promise.race([Promise.all(inFlight), sleep(10_000)]);
  } finally {
    if (!options.pool) await pool.destroy();
  }
  const elapsed = (performance.now() - started) / 1000;
  return { latencies, refusals, sendLag, sent, non2xx, errors, errorKinds, achievedRate: Math.round(latencies.length / elapsed) };
}
