import type { OverloadSettings } from '../config/index.js';

/** Why a request was shed (the `reason` label of `farebox_requests_shed_total`). */
export type OverloadReason = 'event_loop_delay' | 'in_flight';

/** How often the delay sampler expects to run, ms. */
const SAMPLE_MS = 20;
/** Samples the delay must hold over to count: 100 ms of a loop that never caught up. */
const SUSTAINED_SAMPLES = 5;

/**
 * The process's own overload signals, as Envoy's overload manager reads them: the event loop's
 * delay and the work in progress. The delay is how late a timer due every SAMPLE_MS ran, and it
 * counts only when sustained: the least of the last SUSTAINED_SAMPLES, as CoDel reads a queue's
 * standing delay. A loop with any idle moment in that time has a sample near zero, and a single
 * stall (a collection, a large body parsed) is one late sample; only a loop saturated by more work
 * than it can do is late at every one. Cheap enough to ask on every request.
 */
export class OverloadGauge {
  private inFlight = 0;
  private readonly samples: number[] = Array.from({ length: SUSTAINED_SAMPLES }, () => 0);
  private next = 0;
  private sustainedDelayMs = 0;
  private due = performance.now() + SAMPLE_MS;
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly settings: OverloadSettings) {
    this.timer = setInterval(() => this.sample(), SAMPLE_MS);
    this.timer.unref();
  }

  /** The event loop's sustained delay, ms: the least of its last samples. */
  delayMs(): number {
    return this.sustainedDelayMs;
  }

  /** Requests of new work in progress. */
  get running(): number {
    return this.inFlight;
  }

  /**
   * Takes a place for one request of new work, or names why there is none: the caller sheds it.
   * A place taken is given back with {@link leave}.
   */
  enter(): OverloadReason | undefined {
    const { maxInFlight, maxEventLoopDelayMs } = this.settings;
    if (maxInFlight > 0 && this.inFlight >= maxInFlight) return 'in_flight';
    if (maxEventLoopDelayMs > 0 && this.sustainedDelayMs >= maxEventLoopDelayMs) return 'event_loop_delay';
    this.inFlight++;
    return undefined;
  }

  /** Gives back a place taken by {@link enter}. */
  leave(): void {
    this.inFlight--;
  }

  /** Stops sampling. */
  stop(): void {
    clearInterval(this.timer);
  }

  private sample(): void {
    const now = performance.now();
    this.samples[this.next] = Math.max(0, now - this.due);
    this.next = (this.next + 1) % SUSTAINED_SAMPLES;
    this.sustainedDelayMs = Math.min(...this.samples);
    this.due = now + SAMPLE_MS;
  }
}
