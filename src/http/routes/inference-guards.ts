import type { Middleware } from 'koa';
import type { IdempotencyStore } from '../../platform/idempotency/index.js';
import type { KeyAuthenticator } from '../../accounts/index.js';
import type { CeilingRegistry } from '../../quote/index.js';
import { authenticate } from '../middleware/authenticate.js';
import { costCeiling } from '../middleware/cost-ceiling.js';
import { idempotency } from '../middleware/idempotency.js';
import type { GatewayState } from '../state.js';

/** What the guards in front of every metered inference route need. */
export interface InferenceGuardDeps {
  readonly keyAuth: KeyAuthenticator;
  /** Per-key RPM check that also sets the `X-RateLimit-*` headers. */
  readonly rateLimit: Middleware<GatewayState>;
  /** The same check run inside admission's script (used instead of `rateLimit` when given). */
  readonly deferredRateLimit?: Middleware<GatewayState>;
  /** Idempotency keys and the responses kept for replays. */
  readonly idempotency: IdempotencyStore;
  /** Each request's own `max_cost`, registered for admission. */
  readonly ceilings: CeilingRegistry;
}

/**
 * The middleware every metered inference route starts with: inference keys, RPM, then the
 * `Idempotency-Key` replay check and the request's `max_cost` ceiling.
 */
export function inferenceGuards(deps: InferenceGuardDeps): Array<Middleware<GatewayState>> {
  return [authenticate(deps.keyAuth, ['inference']), deps.deferredRateLimit ?? deps.rateLimit, idempotency(deps.idempotency), costCeiling(deps.ceilings)];
}
