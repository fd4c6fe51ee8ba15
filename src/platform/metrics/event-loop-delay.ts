import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import { Gauge, type Registry } from 'prom-client';

/** Sampling step of the delay monitor; delays shorter than this are not resolved. */
const RESOLUTION_MS = 10;
const NS_PER_SECOND = 1e9;

/**
 * Exports event-loop delay (`perf_hooks.monitorEventLoopDelay`) as gauges in seconds:
 * `farebox_event_loop_delay_seconds{stat="p50"|"p99"|"max"}` over the interval since the
 * previous scrape (the window restarts at each scrape, so a spike shows once and then ages
 * out), and `farebox_event_loop_delay_max_seconds`, the worst delay since the process started.
 */
export class EventLoopDelayMetrics {
  private readonly window: IntervalHistogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  private worstSeconds = 0;

  constructor(registry: Registry) {
    this.window.enable();
    const self = this;
    new Gauge({
      name: 'farebox_event_loop_delay_seconds',
      help: 'Event-loop delay since the previous scrape (p50, p99, max)',
      labelNames: ['stat'],
      registers: [registry],
      collect() {
        const { p50, p99, max } = self.takeWindow();
        this.set({ stat: 'p50' }, p50);
        this.set({ stat: 'p99' }, p99);
        this.set({ stat: 'max' }, max);
      },
    });
    new Gauge({
      name: 'farebox_event_loop_delay_max_seconds',
      help: 'Worst event-loop delay since the process started',
      registers: [registry],
      collect() {
        this.set(self.worstSeconds);
      },
    });
  }

  /** Reads and restarts the current window, folding its max into the lifetime worst. */
  private takeWindow(): { p50: number; p99: number; max: number } {
    const h = this.window;
    // An empty window reports NaN/huge sentinels; report zeros instead.
    const seen = h.count > 0;
    const figures = {
      p50: seen ? h.percentile(50) / NS_PER_SECOND : 0,
      p99: seen ? h.percentile(99) / NS_PER_SECOND : 0,
      max: seen ? h.max / NS_PER_SECOND : 0,
    };
    this.worstSeconds = Math.max(this.worstSeconds, figures.max);
    h.reset();
    return figures;
  }

  /** Stops sampling (tests that build many registries). */
  stop(): void {
    this.window.disable();
  }
}
