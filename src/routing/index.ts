/**
 * Routing: one failover policy for every request that has routes (chat, image and OCR jobs).
 * Which failures move on (failover rules), which are tried once more on the same route (a
 * stated `Retry-After`, a quick 5xx), which routes are left alone (breaker, `Retry-After` within
 * a budget), and what each attempt was (attempt records), in one loop: `runRoutes`.
 */
export { AttemptList, type AttemptSink } from './attempt-log.js';
export { BeforeFirstByteError } from './before-first-byte.js';
export { judgeFailure, type FailureVerdict } from './failover-rules.js';
export { RouteHealth, type BreakerPolicy, type RouteGate, type RouteHealthView } from './route-health.js';
export { routeKey, type RouteTarget } from './route-target.js';
export { DEFAULT_RETRY_BUDGET_MS } from './retry-budget.js';
export { runRoutes, type RouteRun, type RoutingDeps, type RoutedRequest } from './run-routes.js';
