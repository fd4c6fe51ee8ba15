import { Counter, Histogram, type Registry } from 'prom-client';

/**
 * Health of routes and upstream keys: attempts per route, failures by cause, routes skipped by
 * their circuit breaker, attempt latency, and keys set aside. A route label is
 * `<model id>@<provider>/<upstream model>` (catalog routes only, so series stay bounded).
 */
export class RouteMetrics {
  private readonly attempts: Counter<'route' | 'provider'>;
  private readonly failures: Counter<'route' | 'provider' | 'cause'>;
  private readonly skipped: Counter<'route' | 'provider' | 'reason'>;
  private readonly seconds: Histogram<'route' | 'provider' | 'outcome'>;
  private readonly keys: Counter<'provider' | 'key_env' | 'reason'>;

  constructor(registry: Registry) {
    const registers = [registry];
    this.attempts = new Counter({ name: 'farebox_route_attempts_total', help: 'Upstream attempts per route', labelNames: ['route', 'provider'], registers });
    this.failures = new Counter({ name: 'farebox_route_failures_total', help: 'Attempts that failed before the first byte, by cause', labelNames: ['route', 'provider', 'cause'], registers });
    this.skipped = new Counter({ name: 'farebox_route_skipped_total', help: 'Routes skipped (circuit open, waiting out Retry-After)', labelNames: ['route', 'provider', 'reason'], registers });
    this.seconds = new Histogram({
      name: 'farebox_route_attempt_seconds',
      help: 'Time of one attempt up to its first byte or its failure',
      labelNames: ['route', 'provider', 'outcome'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    });
    this.keys = new Counter({ name: 'farebox_upstream_keys_set_aside_total', help: 'Upstream keys set aside after 401/403 or insufficient_quota', labelNames: ['provider', 'key_env', 'reason'], registers });
  }

  /** One attempt ended: ok (first byte) or a failure with its cause. */
  attempt(route: string, provider: string, seconds: number, cause: string | undefined): void {
    this.attempts.inc({ route, provider });
    this.seconds.observe({ route, provider, outcome: cause === undefined ? 'ok' : 'error' }, seconds);
    if (cause !== undefined) this.failures.inc({ route, provider, cause });
  }

  /** A route was not tried. */
  skip(route: string, provider: string, reason: string): void {
    this.skipped.inc({ route, provider, reason });
  }

  /** An upstream key was set aside (named by its environment variable, never its value). */
  keySetAside(provider: string, keyEnv: string, reason: string): void {
    this.keys.inc({ provider, key_env: keyEnv, reason });
  }
}
