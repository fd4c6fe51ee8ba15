import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { toUsdNumber } from '../billing/index.js';
import { logOutputStats } from '../platform/log/index.js';
import { EventLoopDelayMetrics, registerLogMetrics } from '../platform/metrics/index.js';
import { LedgerMetrics } from './ledger-metrics.js';
import { RequestMetrics } from './request-metrics.js';
import { RouteMetrics } from './route-metrics.js';
import { QueueMetrics } from './queue-metrics.js';

/** What kind of upstream call a latency sample measures. */
export type UpstreamPhase = 'complete' | 'first_event';

/**
 * The process's Prometheus metrics. One registry per instance (not prom-client's global
 * one), so several gateways in one test process do not collide. Label sets are small and
 * fixed (route patterns, provider ids), so series stay bounded.
 */
export class Metrics {
  readonly registry = new Registry();
  /** Per-request outcomes of the inference endpoints (requests, refusals, tokens, spend). */
  readonly outcomes = new RequestMetrics(this.registry);
  private readonly requests: Counter<'method' | 'route' | 'status'>;
  private readonly upstreamSeconds: Histogram<'provider' | 'phase' | 'outcome'>;
  private readonly openStreams: Gauge;
  private readonly charges: Counter<'source'>;
  private readonly chargedUsd: Counter<'source'>;
  private readonly unpriced: Counter<'model' | 'unit'>;
  private readonly overLimits: Counter<'source'>;
  private readonly shedRequests: Counter<'reason'>;
  /** Event-loop delay, so a request that blocks the loop shows on /metrics. */
  readonly eventLoop: EventLoopDelayMetrics;
  /** Ledger batch commits and spool depth (the ledger writer's observer). */
  readonly ledger: LedgerMetrics;
  /** Queue depth and job timings (the worker scaling signal). */
  readonly queue: QueueMetrics;
  /** Routes and upstream keys: attempts, failures by cause, skips, keys set aside. */
  readonly routes: RouteMetrics;

  constructor(options: { defaultMetrics?: boolean } = {}) {
    const registers = [this.registry];
    this.requests = new Counter({
      name: 'farebox_http_requests_total',
      help: 'HTTP requests by route pattern and status',
      labelNames: ['method', 'route', 'status'],
      registers,
    });
    this.upstreamSeconds = new Histogram({
      name: 'farebox_upstream_latency_seconds',
      help: 'Upstream latency: whole call (complete) or time to the first stream event',
      labelNames: ['provider', 'phase', 'outcome'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
      registers,
    });
    this.openStreams = new Gauge({ name: 'farebox_open_streams', help: 'Streams being relayed now', registers });
    this.shedRequests = new Counter({
      name: 'farebox_requests_shed_total',
      help: 'Requests of new work answered 503 overloaded, or dropped because their client had left, by reason',
      labelNames: ['reason'],
      registers,
    });
    this.charges = new Counter({
      name: 'farebox_ledger_charges_total',
      help: 'Charges made durable in the ledger',
      labelNames: ['source'],
      registers,
    });
    this.chargedUsd = new Counter({
      name: 'farebox_ledger_charged_usd_total',
      help: 'USD taken from balances by charges',
      labelNames: ['source'],
      registers,
    });
    this.unpriced = new Counter({
      name: 'farebox_unpriced_units_total',
      help: 'Units an upstream reported that the catalog has no price for (an operator error)',
      labelNames: ['model', 'unit'],
      registers,
    });
    this.overLimits = new Counter({
      name: 'farebox_upstream_over_limit_total',
      help: 'Charges whose metered cost exceeded the hold; the excess was absorbed',
      labelNames: ['source'],
      registers,
    });
    this.eventLoop = new EventLoopDelayMetrics(this.registry);
    this.ledger = new LedgerMetrics(this.registry);
    this.queue = new QueueMetrics(this.registry);
    this.routes = new RouteMetrics(this.registry);
    registerLogMetrics(this.registry, logOutputStats);
    if (options.defaultMetrics === true) collectDefaultMetrics({ register: this.registry, prefix: 'farebox_' });
  }

  /**
   * Shows which path admits requests as `farebox_admission_mode{mode}` (1 for the current one):
   * `exact`, `leased`, or `degraded` (Redis unreachable, admitting on held slices only).
   */
  watchAdmission(admission: { mode(): string }): void {
    const modes = ['exact', 'leased', 'degraded'];
    new Gauge({
      name: 'farebox_admission_mode',
      help: 'Which path admits requests (1 for the current mode)',
      labelNames: ['mode'],
      registers: [this.registry],
      collect() {
        const current = admission.mode();
        for (const mode of modes) this.set({ mode }, mode === current ? 1 : 0);
      },
    });
  }

  /** Shows the requests of new work in flight, as the overload gauge counts them. */
  watchOverload(overload: { readonly running: number }): void {
    new Gauge({
      name: 'farebox_requests_in_flight',
      help: 'Requests of new work in progress, streams included',
      registers: [this.registry],
      collect() {
        this.set(overload.running);
      },
    });
  }

  /** Counts a request of new work shed (`event_loop_delay`, `event_loop_busy`, `in_flight`) or dropped (`client_left`). */
  shed(reason: string): void {
    this.shedRequests.inc({ reason });
  }

  /** Counts one finished HTTP request. */
  request(method: string, route: string, status: number): void {
    this.requests.inc({ method, route, status: String(status) });
  }

  /** Records an upstream call's latency. */
  upstream(provider: string, phase: UpstreamPhase, seconds: number, ok: boolean): void {
    this.upstreamSeconds.observe({ provider, phase, outcome: ok ? 'ok' : 'error' }, seconds);
  }

  /** A stream started relaying. */
  streamOpened(): void {
    this.openStreams.inc();
  }

  /** A stream ended (any way). */
  streamClosed(): void {
    this.openStreams.dec();
  }

  /** A charge became durable; `charged` is nano-USD taken from the balance. */
  charged(source: string, charged: bigint): void {
    this.charges.inc({ source });
    if (charged > 0n) this.chargedUsd.inc({ source }, toUsdNumber(charged));
  }

  /** An upstream reported units of `model` that have no price. */
  unpricedUnits(model: string, units: readonly string[]): void {
    for (const unit of units) this.unpriced.inc({ model, unit });
  }

  /** A charge was capped at its hold; the excess was absorbed. */
  overLimit(source: string): void {
    this.overLimits.inc({ source });
  }

  /** The Prometheus text exposition. */
  async render(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
