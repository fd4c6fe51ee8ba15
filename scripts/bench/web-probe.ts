import './loopback-only.js';

/**
 * Preloaded into the benchmark's web process (`node --expose-gc --import <this> …`); it changes
 * nothing on the request path.
 * - The web entry listens on every interface; the benchmark must stay on loopback, so every
 *   listen is bound to 127.0.0.1 (see loopback-only).
 * - On SIGUSR2 it runs a full GC (when exposed) and writes one line to stderr,
 *   `BENCH_MEMORY {rss, heapTotal, heapUsed, external, arrayBuffers}`, so the benchmark can
 *   compare retained memory before and after a run.
 */

process.on('SIGUSR2', () => {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const { rss, heapTotal, heapUsed, external, arrayBuffers } = process.memoryUsage();
  process.stderr.write(`BENCH_MEMORY ${JSON.stringify({ rss, heapTotal, heapUsed, external, arrayBuffers, gc: gc !== undefined })}\n`);
});
