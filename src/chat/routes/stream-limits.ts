import type { RouteHealth, RouteTarget } from '../../routing/index.js';
import type { AdmittedRoute } from '../admit/admitted-route.js';
import type { UpstreamTiming } from './upstream-signal.js';

/** The silences one upstream stream may keep, ms; an absent limit leaves only the transport's. */
export interface StreamLimits {
  /** From the call's start to its first visible event. */
  readonly firstTokenMs?: number;
  /** Between two events, once the answer's first token arrived. */
  readonly stallMs?: number;
}

/**
 * Whether one of `routes` could take a request now: its breaker not open and no `Retry-After`
 * pending (without a breaker, any route could).
 */
export function anyRouteAvailable(health: RouteHealth | undefined, routes: readonly RouteTarget[]): boolean {
  return routes.some((route) => {
    const view = health?.view(route.key);
    return view === undefined || (view.state !== 'open' && view.retry_after_ms === 0);
  });
}

/**
 * The limits of one route's stream. Both apply only where another route could take over
 * (`movesOn`, see anyRouteAvailable): with none left, ending a silent stream early would only
 * lose the answer, so it waits as long as the idle limit allows (the client is kept alive by
 * heartbeats meanwhile; the idle limit still ends a dead connection). The first-token limit
 * never applies to a model the catalog marks REASONING: such a model may think for minutes
 * before its first token, and ending that wait would only throw the thinking away. Once answer
 * text flows a long silence means a stalled stream, whatever the model.
 */
export function streamLimits(timing: UpstreamTiming, route: Pick<AdmittedRoute, 'model'>, movesOn: boolean): StreamLimits {
  if (!movesOn) return {};
  const thinks = route.model.doc.capabilities.includes('REASONING');
  return {
    ...(!thinks && timing.firstTokenMs !== undefined ? { firstTokenMs: timing.firstTokenMs } : {}),
    ...(timing.stallMs !== undefined ? { stallMs: timing.stallMs } : {}),
  };
}
