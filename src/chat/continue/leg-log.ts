import type { AttemptRecord } from '../../ledger/index.js';
import type { AttemptSink, RouteTarget } from '../../routing/index.js';
import type { ChatServiceDeps } from '../chat-service-deps.js';

/** Writes attempt lines of a continued stream, each naming its leg. */
export class LegLog {
  constructor(
    private readonly deps: ChatServiceDeps,
    private readonly sink: AttemptSink | undefined,
  ) {}

  note(route: RouteTarget, leg: number, outcome: AttemptRecord['outcome'], cause: string | null, status: number | null, ms: number): void {
    this.sink?.attempted({ model: route.entryId, provider: route.providerId, upstream_model: route.upstreamModel, outcome, cause, status, latency_ms: Math.round(ms), leg });
    if (outcome === 'skipped') this.deps.metrics?.routes.skip(route.key, route.providerId, cause ?? 'skipped');
  }
}
