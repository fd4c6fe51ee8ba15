/** Default most time one request waits out upstream `Retry-After`s. */
export const DEFAULT_RETRY_BUDGET_MS = 10_000;

/**
 * The time one request may spend on retries (waiting out `Retry-After`s, pausing before a
 * route is tried once more), counted from its first attempt: a wait that does not fit is not
 * waited, so a failing route never holds a request for longer than the operator allows.
 */
export class RetryBudget {
  private readonly started = performance.now();

  constructor(private readonly budgetMs: number = DEFAULT_RETRY_BUDGET_MS) {}

  /** Time left, ms. */
  left(): number {
    return this.budgetMs - (performance.now() - this.started);
  }

  /** Whether waiting `ms` still fits. */
  fits(ms: number): boolean {
    return ms <= this.left();
  }
}
