import { performance, type EventLoopUtilization } from 'node:perf_hooks';
import type { OverloadSettings } from '../config/index.js';

/** Why a request was shed (the `reason` label of `farebox_requests_shed_total`). */
export type OverloadReason = 'event_loop_delay' | 'event_loop_busy' | 'in_flight';

/** How often the delay sampler expects to run, ms. */
const SAMPLE_MS = 20;
/** Samples the delay must hold over to count: 100 ms of a loop that never caught up. */
const SUSTAINED_SAMPLES = 5;
/**
 * The adaptive limit never goes below this: a saturated web still takes new work, and a client
 * pool of this size (a closed loop, whose queue its own size bounds) is never shed.
 */
const MIN_LIMIT = 64;
/** While the loop is saturated the limit shrinks to this share of the work in flight, each sample. */
const DECREASE = 0.9;
/** While it is not, the limit grows back by this share each sample (about ×2.7 a second). */
const INCREASE = 0.02;

/**
 * The process's own overload signals, as Envoy's overload manager reads them: the event loop's
 * delay and how busy it was, and the work in progress. The delay is how late a timer due every
 * SAMPLE_MS ran, and it counts only when sustained: the least of the last SUSTAINED_SAMPLES, as
 * CoDel reads a queue's standing delay. A loop with any idle moment in that time has a sample
 * near zero, and a single stall (a collection, a large body parsed) is one late sample; only a
 * loop saturated by more work than it can do is late at every one. The busy share (event-loop
 * utilization over the same 100 ms) catches the saturation the delay misses: work that comes in
 * bursts (a group commit answering a batch of requests at once, upstream answers arriving
 * together) leaves a timer an idle moment now and then, yet the loop has almost none to spare,
 * requests wait in unread sockets and each turn grows with the work admitted.
 *
 * Either signal steers a limit on the work in flight (additive increase, multiplicative
 * decrease, as TCP steers its window): while the loop is saturated the limit falls below what is
 * in flight, so new work is shed until the loop has room again; then it grows back towards
 * `maxInFlight`. A web waiting on slow upstreams with an idle loop is never limited but by
 * `maxInFlight`. Cheap enough to ask on every request.
 */
export class OverloadGauge {
  private inFlight = 0;
  private readonly samples: number[] = Array.from({ length: SUSTAINED_SAMPLES }, () => 0);
  private next = 0;
  private sustainedDelayMs = 0;
  private limit: number;
  /** The signal that last found the loop saturated: what a shed below the ceiling is put down to. */
  private narrowedBy: OverloadReason = 'event_loop_delay';
  private due = performance.now() + SAMPLE_MS;
  /** Event-loop utilization at each of the last SUSTAINED_SAMPLES samples, oldest at `next`. */
  private readonly busy: EventLoopUtilization[] = Array.from({ length: SUSTAINED_SAMPLES }, () => performance.eventLoopUtilization());
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly settings: OverloadSettings) {
    this.limit = this.ceiling;
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

  /** What may be in flight now: the adaptive limit, at most `maxInFlight`. */
  get allowed(): number {
    return Math.floor(this.limit);
  }

  /**
   * Takes a place for one request of new work, or names why there is none: the caller sheds it.
   * A place taken is given back with {@link leave}.
   */
  enter(): OverloadReason | undefined {
    if (this.inFlight >= this.limit) return this.limit < this.ceiling ? this.narrowedBy : 'in_flight';
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

  /** `maxInFlight`, or no bound when it is 0. */
  private get ceiling(): number {
    return this.settings.maxInFlight > 0 ? this.settings.maxInFlight : Number.POSITIVE_INFINITY;
  }

  private sample(): void {
    const now = performance.now();
    this.samples[this.next] = Math.max(0, now - this.due);
    const utilization = performance.eventLoopUtilization();
    const busyShare = performance.eventLoopUtilization(utilization, this.busy[this.next]).utilization;
    this.busy[this.next] = utilization;
    this.next = (this.next + 1) % SUSTAINED_SAMPLES;
    this.sustainedDelayMs = Math.min(...this.samples);
    this.due = now + SAMPLE_MS;
    const saturated = this.saturation(busyShare);
    if (saturated !== undefined) {
      this.narrowedBy = saturated;
      this.limit = Math.min(this.ceiling, Math.max(MIN_LIMIT, Math.min(this.limit, this.inFlight) * DECREASE));
    } else if (this.limit < this.ceiling) this.limit = Math.min(this.ceiling, this.limit + Math.max(1, this.limit * INCREASE));
  }

  /** The signal (of those on) by which the loop had no room to spare over the last samples, if any. */
  private saturation(busyShare: number): OverloadReason | undefined {
    const { maxEventLoopDelayMs, maxEventLoopBusy } = this.settings;
    if (maxEventLoopDelayMs > 0 && this.sustainedDelayMs >= maxEventLoopDelayMs) return 'event_loop_delay';
    if (maxEventLoopBusy > 0 && busyShare >= maxEventLoopBusy) return 'event_loop_busy';
    return undefined;
  }
}
