import type { Logger } from 'pino';
import type { Clock } from '../billing/index.js';
import type { CatalogCache } from '../catalog/index.js';
import type { Admission } from '../admission/index.js';
import type { Metrics } from '../metrics/index.js';
import type { ProviderRegistry } from '../providers/index.js';
import type { DraftLookup } from '../ledger/index.js';
import type { RouteHealth } from '../routing/index.js';
import type { GraceReads } from './settle/grace-reads.js';
import type { UpstreamTiming } from './routes/upstream-signal.js';

/** The metrics chat reports: charges, upstream timings, open streams, route outcomes. */
export type ChatMetrics = Pick<Metrics, 'charged' | 'overLimit' | 'unpricedUnits' | 'upstream' | 'streamOpened' | 'streamClosed' | 'routes'>;

/** What the chat service needs from the composition root. */
export interface ChatServiceDeps {
  readonly catalog: CatalogCache;
  readonly providers: Pick<ProviderRegistry, 'get'>;
  readonly admission: Admission;
  readonly log: Logger;
  readonly clock: Clock;
  /** Optional so unit tests can leave metrics out. */
  readonly metrics?: ChatMetrics;
  /** Open request records, told when a stream fails after it answered 200. */
  readonly requests?: DraftLookup;
  /** How long a request may run and wait for usage after its client left. */
  readonly requestTiming: UpstreamTiming;
  /** This process's bound on streams read for usage after their client left; absent: unbounded. */
  readonly graceReads?: GraceReads;
  /** Health of routes in this process (breaker, Retry-After, latency); absent: no breaker. */
  readonly routeHealth?: RouteHealth;
  /** Most time one request may wait out upstream `Retry-After`s, ms (default 10 000). */
  readonly routeRetryBudgetMs?: number;
  /** Slowest 5xx still tried again on its route, ms (default 5 000). */
  readonly routeQuickFailureMs?: number;
}
