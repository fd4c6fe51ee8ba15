import type { CatalogModel } from '../catalog/model-types.js';
import { formatUsd } from '../billing/money.js';
import { nextDayStart, nextMonthStart } from '../billing/periods.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { KeyDoc } from '../keys/key-types.js';

/** A spend cap of a key. */
export type CapName = 'lifetime' | 'day' | 'month';

/** What a refused request could do instead: said by the caller for its kind of request. */
export type FitDescriber = (room: bigint) => string;

function fitText(fit: FitDescriber | undefined, room: bigint, estimate: bigint): string {
  if (fit !== undefined) return ` ${fit(room)}`;
  return ` This request can cost up to $${formatUsd(estimate)}; $${formatUsd(room > 0n ? room : 0n)} is left.`;
}

/** The room a refusal reports, and what the request would have held. */
export interface Shortfall {
  /** Nano-USD left (may be zero or negative when in-flight holds use it all). */
  room: bigint;
  estimate: bigint;
  fit?: FitDescriber;
}

/** 403 naming the cap, what would fit under it, and when it resets. */
export function capReached(key: KeyDoc, cap: CapName, now: Date, shortfall?: Shortfall): GatewayError {
  const amount = key.limits.spend_cap?.[cap] ?? 0n;
  const resets =
    cap === 'lifetime'
      ? 'It does not reset; raise or remove the cap to continue.'
      : `It resets at ${(cap === 'day' ? nextDayStart(now) : nextMonthStart(now)).toISOString()}.`;
  const label = cap === 'lifetime' ? 'lifetime' : cap === 'day' ? 'daily (UTC)' : 'monthly (UTC)';
  const reached = shortfall === undefined || shortfall.room <= 0n;
  const head = reached
    ? `This key reached its ${label} spend cap of $${formatUsd(amount)} (requests in flight included).`
    : `This request's worst-case cost does not fit this key's ${label} spend cap of $${formatUsd(amount)} (requests in flight included).`;
  const fit = shortfall === undefined ? '' : fitText(shortfall.fit, shortfall.room, shortfall.estimate);
  return new GatewayError('key_limit_exceeded', `${head}${fit} ${resets}`);
}

/** 402 when the request's worst case does not fit the available balance (balance − in-flight holds). */
export function insufficientCredits(shortfall?: Shortfall): GatewayError {
  if (shortfall === undefined || shortfall.room <= 0n) {
    return new GatewayError(
      'insufficient_credits',
      'Insufficient credits: the available balance (balance minus requests in flight) is $0. Top up the account to continue.',
    );
  }
  return new GatewayError(
    'insufficient_credits',
    `Insufficient credits: this request's worst-case cost does not fit the available balance (balance minus requests in flight) of $${formatUsd(shortfall.room)}.${fitText(shortfall.fit, shortfall.room, shortfall.estimate)} Top up the account to continue.`,
  );
}

/** 403 for a model outside the key's allowlist. */
export function notInAllowlist(model: CatalogModel, allowed: readonly string[]): GatewayError {
  const list = allowed.length > 0 ? allowed.join(', ') : '(none)';
  return new GatewayError('model_not_allowed', `This key may not use model '${model.id}'. Allowed models: ${list}.`, {
    param: 'model',
  });
}

/** 403 for a non-free model on a free-tier account; lists what the account may use. */
export function notOnFreeTier(model: CatalogModel, freeModels: readonly string[]): GatewayError {
  const list = freeModels.length > 0 ? freeModels.join(', ') : '(none at the moment)';
  return new GatewayError(
    'model_not_allowed',
    `Model '${model.id}' is not available on the free tier. Free-tier models: ${list}. Top up the account to use every model.`,
    { param: 'model' },
  );
}

/** 403 for a management key calling a model. */
export function managementKey(): GatewayError {
  return new GatewayError('model_not_allowed', 'Management keys cannot call models; use an inference key.');
}

/** 429 when the key already runs its maximum of concurrent streams. */
export function tooManyStreams(limit: number): GatewayError {
  return new GatewayError(
    'too_many_concurrent',
    `This key already has ${limit} concurrent stream${limit === 1 ? '' : 's'} open (its limit). Retry when one finishes.`,
    { retryAfterSeconds: 1 },
  );
}

/** Which limit refused a request in the rate check. */
export type RateScope = 'key' | 'free_tier_minute' | 'free_tier_day';

/** 429 with a truthful Retry-After (a retry after it is admitted unless others used the room). */
export function rateLimited(scope: RateScope, limit: number, retryAfterMs: number): GatewayError {
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  const what =
    scope === 'key'
      ? `this key's limit of ${limit} requests per minute`
      : scope === 'free_tier_minute'
        ? `the free tier's limit of ${limit} requests per minute`
        : `the free tier's limit of ${limit} requests per UTC day`;
  return new GatewayError('rate_limited', `Rate limit reached: ${what}. Retry after ${seconds} s.`, {
    retryAfterSeconds: seconds,
  });
}
