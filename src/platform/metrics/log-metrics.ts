import { Counter, Gauge, type Registry } from 'prom-client';
import type { LogOutputStats } from '../log/index.js';

/**
 * Exports what the process's log output dropped while its reader was slow
 * (`farebox_log_lines_dropped_total`) and how much it holds now (`farebox_log_buffer_chars`),
 * read from the output at each scrape.
 */
export function registerLogMetrics(registry: Registry, stats: () => LogOutputStats | undefined): void {
  let counted = 0;
  new Counter({
    name: 'farebox_log_lines_dropped_total',
    help: 'Log lines dropped because the reader of stdout was too slow',
    registers: [registry],
    collect() {
      const dropped = stats()?.dropped ?? 0;
      if (dropped > counted) this.inc(dropped - counted);
      counted = Math.max(counted, dropped);
    },
  });
  new Gauge({
    name: 'farebox_log_buffer_chars',
    help: 'Log output waiting to be written to stdout, characters (bounded by LOG_BUFFER_CHARS)',
    registers: [registry],
    collect() {
      this.set(stats()?.pending ?? 0);
    },
  });
}
