/** What the breaker lets through for one route now. */
export type RouteGate = 'open' | 'closed' | 'trial' | 'retry_after';

/** Breaker settings: failures in a row that open it, and how long it stays open. */
export interface BreakerPolicy {
  readonly breakerFailures: number;
  readonly breakerCooldownMs: number;
}

interface RouteState {
  failures: number;
  openUntil: number;
  trial: boolean;
  retryAt: number;
  /** Smoothed time to the first byte, ms (for `sort: "latency"`). */
  latencyMs: number | undefined;
}

/** What the operator view shows of a route's health. */
export interface RouteHealthView {
  state: 'closed' | 'open' | 'half_open';
  consecutive_failures: number;
  retry_after_ms: number;
  latency_ms: number | null;
}

/** Weight of a new latency sample in the moving average. */
const LATENCY_WEIGHT = 0.2;

/**
 * Health of every route in this process: a circuit breaker per route (N failures in a row
 * open it for a cool-down; then one trial request decides), the time its `Retry-After` asks
 * to wait, and its smoothed latency. Per process on purpose: each process learns fast from
 * its own traffic, and no shared store sits on the request path.
 */
export class RouteHealth {
  private readonly states = new Map<string, RouteState>();

  constructor(
    private readonly policy: BreakerPolicy,
    private readonly now: () => number = Date.now,
  ) {}

  private state(key: string): RouteState {
    let found = this.states.get(key);
    if (found === undefined) {
      found = { failures: 0, openUntil: 0, trial: false, retryAt: 0, latencyMs: undefined };
      this.states.set(key, found);
    }
    return found;
  }

  /** Whether a request may try the route now; `trial` takes the one half-open slot. */
  gate(key: string): RouteGate {
    const s = this.state(key);
    const at = this.now();
    if (s.retryAt > at) return 'retry_after';
    if (s.failures < this.policy.breakerFailures) return 'closed';
    if (s.openUntil > at || s.trial) return 'open';
    s.trial = true;
    return 'trial';
  }

  /** The route gave its first byte. */
  succeeded(key: string, latencyMs: number): void {
    const s = this.state(key);
    s.failures = 0;
    s.trial = false;
    s.latencyMs = s.latencyMs === undefined ? latencyMs : s.latencyMs + LATENCY_WEIGHT * (latencyMs - s.latencyMs);
  }

  /** The route failed before its first byte; `retryAfterMs` when it asked to be left alone. */
  failed(key: string, retryAfterMs?: number): void {
    const s = this.state(key);
    const at = this.now();
    s.failures += 1;
    s.trial = false;
    if (s.failures >= this.policy.breakerFailures) s.openUntil = at + this.policy.breakerCooldownMs;
    if (retryAfterMs !== undefined) s.retryAt = Math.max(s.retryAt, at + retryAfterMs);
  }

  /** A trial slot taken but not used (the request ended first): free it for another. */
  abandoned(key: string): void {
    this.state(key).trial = false;
  }

  /** When the route's `Retry-After` ends (epoch ms; 0 when none). */
  retryAt(key: string): number {
    return this.states.get(key)?.retryAt ?? 0;
  }

  /** Smoothed latency to the first byte, if the route ever answered. */
  latency(key: string): number | undefined {
    return this.states.get(key)?.latencyMs;
  }

  /** The route's health for operators. */
  view(key: string): RouteHealthView {
    const s = this.states.get(key);
    const at = this.now();
    if (s === undefined) return { state: 'closed', consecutive_failures: 0, retry_after_ms: 0, latency_ms: null };
    const tripped = s.failures >= this.policy.breakerFailures;
    const state = !tripped ? 'closed' : s.openUntil > at ? 'open' : 'half_open';
    const latency = s.latencyMs === undefined ? null : Math.round(s.latencyMs);
    return { state, consecutive_failures: s.failures, retry_after_ms: Math.max(0, s.retryAt - at), latency_ms: latency };
  }
}
