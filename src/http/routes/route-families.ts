import type { Router } from '@koa/router';
import type { Middleware } from 'koa';
import { consoleRoutes } from './console/console-routes.js';
import { queueDashboardRoutes } from './admin/queue-dashboard.js';
import type { Deps } from '../../deps.js';
import { metricsRoutes } from './metrics/metrics-routes.js';
import type { JobQueue, QueuedServiceDeps } from '../../queue/index.js';
import { ceilingAdmission } from '../../quote/index.js';
import { recordingAdmission } from '../../admission/index.js';
import { deferredRateLimit, rateLimit } from '../middleware/rate-limit.js';
import type { GatewayState } from '../state.js';
import { withSettledReads } from '../middleware/settled-reads.js';
import { accountRoutes, type LiveUsageReader } from './account/account-routes.js';
import { adminRoutes } from './admin/admin-routes.js';
import { chatRoutes } from './chat/chat-routes.js';
import { countRoutes } from './count/count-routes.js';
import { CountLimiter } from '../../chat/index.js';
import { embeddingsRoutes } from './embeddings/embeddings-routes.js';
import { healthRoutes } from './health/health-routes.js';
import { imagesRoutes } from './images/images-routes.js';
import { managementRoutes } from './keys/management-routes.js';
import { messagesRoutes } from './messages/messages-routes.js';
import { modelsRoutes } from './models/models-routes.js';
import { ocrRoutes } from './ocr/ocr-routes.js';
import { jobsRoutes } from './jobs/jobs-routes.js';
import { quoteRoutes } from './quote/quote-routes.js';
import { receiptsRoutes } from './receipts/receipts-routes.js';
import { requestsRoutes } from './requests/requests-routes.js';
import { responsesRoutes } from './responses/responses-routes.js';
import { webhookRoutes } from './webhooks/webhook-family.js';
import { openApiRoutes } from '../openapi/openapi-routes.js';

/** Everything a route family may take: the process's deps plus what only the web process has. */
export interface RouteFamilyDeps extends Deps {
  /** Per-key RPM check, shared by every inference family. */
  readonly rateLimit: Middleware<GatewayState>;
  /** Per-key RPM check run inside admission's script, for routes that pass `ctx.state.rate` on. */
  readonly deferredRateLimit?: Middleware<GatewayState>;
  /** Live usage shown by `GET /v1/key`; defaults to the admission state. */
  readonly liveUsage?: LiveUsageReader;
  /** Trust and resolver overrides for OCR document fetches (tests against local https servers). */
  readonly documentFetch?: QueuedServiceDeps['documentFetch'];
}

/** One route family: a name (for reading and logs) and the factory of its router. */
export interface RouteFamily {
  readonly name: string;
  /** Builds the family's router, or undefined when the process lacks what it needs. */
  readonly mount: (deps: RouteFamilyDeps) => Router<GatewayState> | undefined;
  /** Its reads show balances, spend, ledger or records: they wait for acknowledged charges. */
  readonly readsMoney?: boolean;
}

/** The queue-backed families' deps, or undefined when this process has no job queue. */
function queued(deps: RouteFamilyDeps): (QueuedServiceDeps & RouteFamilyDeps & { jobs: JobQueue }) | undefined {
  const { jobs } = deps;
  return jobs === undefined ? undefined : { ...deps, jobs };
}

/**
 * Every route family of the gateway, in mounting order (no two families share a path, so the
 * order only decides how many routers a request passes before its own). This is the one place a
 * new family is added: give it a name and a factory over {@link RouteFamilyDeps}.
 */
export const ROUTE_FAMILIES: readonly RouteFamily[] = [
  // Inference first: they carry nearly all the traffic, and each router passed costs a match.
  { name: 'chat', mount: (deps) => chatRoutes(deps) },
  { name: 'responses', mount: (deps) => responsesRoutes(deps) },
  { name: 'messages', mount: (deps) => messagesRoutes(deps) },
  { name: 'embeddings', mount: (deps) => embeddingsRoutes(deps) },
  { name: 'images', mount: (deps) => mapDefined(queued(deps), imagesRoutes) },
  { name: 'ocr', mount: (deps) => mapDefined(queued(deps), ocrRoutes) },
  { name: 'jobs', mount: (deps) => mapDefined(queued(deps), jobsRoutes) },
  { name: 'health', mount: (deps) => healthRoutes(deps) },
  { name: 'openapi', mount: () => openApiRoutes() },
  { name: 'models', mount: (deps) => modelsRoutes(deps.catalog, deps.providers) },
  { name: 'account', readsMoney: true, mount: (deps) => accountRoutes(deps, deps.liveUsage ?? ((key, endUser) => deps.admission.liveUsage(key, endUser))) },
  { name: 'keys management', readsMoney: true, mount: (deps) => managementRoutes(deps) },
  { name: 'request records', readsMoney: true, mount: (deps) => requestsRoutes(deps) },
  { name: 'receipts', readsMoney: true, mount: (deps) => receiptsRoutes(deps) },
  { name: 'admin', readsMoney: true, mount: (deps) => adminRoutes(deps) },
  { name: 'webhooks', mount: (deps) => webhookRoutes(deps) },
  { name: 'quote', mount: (deps) => quoteRoutes(deps, deps.liveUsage ?? ((key, endUser) => deps.admission.liveUsage(key, endUser))) },
  { name: 'token counts', mount: (deps) => countRoutes({ ...deps, countLimiter: new CountLimiter(deps.redis, deps.config.redisPrefix, deps.config.countTokensRpm, deps.clock) }) },
  { name: 'metrics', mount: (deps) => metricsRoutes(deps.metrics, deps.config.adminToken) },
  { name: 'console', mount: (deps) => consoleRoutes(deps) },
  { name: 'queue dashboard', mount: (deps) => mapDefined(deps.jobs, (jobs) => queueDashboardRoutes(jobs, deps.config.adminToken)) },
];

function mapDefined<T, R>(value: T | undefined, f: (value: T) => R): R | undefined {
  return value === undefined ? undefined : f(value);
}

/** What the web process adds to {@link Deps} for its routes. */
export type RouteOptions = Pick<RouteFamilyDeps, 'liveUsage' | 'documentFetch'>;

/** The routers of every family this process can serve, in {@link ROUTE_FAMILIES} order. */
export function routeFamilies(deps: Deps, options: RouteOptions = {}): Router<GatewayState>[] {
  // Admissions made by the routes fill the request records (model, provider, charge).
  // Ceilings are checked inside, so a `max_cost_exceeded` refusal is recorded with its model.
  const admission = recordingAdmission(ceilingAdmission(deps.admission, deps.ceilings), deps.requests);
  const familyDeps: RouteFamilyDeps = { ...deps, ...options, admission, rateLimit: rateLimit(deps.admission), deferredRateLimit: deferredRateLimit(deps.admission) };
  return ROUTE_FAMILIES.flatMap((family) => {
    const router = family.mount(familyDeps);
    if (router === undefined) return [];
    return family.readsMoney ? withSettledReads(router, deps.ledger) : router;
  });
}
