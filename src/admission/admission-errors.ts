import type { CatalogModel } from '../catalog/index.js';
import { type CapName, formatUsd, type LimitScope, resetOf, spendMirror, type SpendWindow } from '../billing/index.js';
import { GatewayError } from '../platform/errors/index.js';

export type { CapName } from '../billing/index.js';

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

const WINDOW_LABEL: Readonly<Record<SpendWindow, string>> = {
  lifetime: 'lifetime',
  day: 'daily (UTC day)',
  week: 'weekly (ISO week, from Monday 00:00 UTC)',
  month: 'monthly (UTC month)',
};

/** Who reached a cap, whose cap it is, and the setting that sets it. */
const OWNER: Readonly<Record<LimitScope, [string, string, string]>> = {
  key: ['This key', "this key's", 'spend_cap_usd'],
  account: ["This key's account", "the account's", "account limits' spend_cap_usd, across all its keys"],
  user: ['This end user', "this end user's", 'end_user_limits.spend_cap_usd'],
};

/** 403 naming the cap (whose, which window, the setting), what would fit under it, and when it resets. */
export function capReached(cap: CapName, amount: bigint, now: Date, shortfall?: Shortfall): GatewayError {
  const m = spendMirror(cap);
  const window = m?.window ?? 'lifetime';
  const [who, whose, setting] = OWNER[m?.scope ?? 'key'];
  const reset = resetOf(window, now);
  const resets = reset === undefined ? 'It does not reset; raise or remove the cap to continue.' : `It resets at ${reset.toISOString()}.`;
  const label = `${WINDOW_LABEL[window]} spend cap of $${formatUsd(amount)} (${setting}.${window})`;
  const reached = shortfall === undefined || shortfall.room <= 0n;
  const head = reached
    ? `${who} reached its ${label}, requests in flight included.`
    : `This request's worst-case cost does not fit ${whose} ${label}, requests in flight included.`;
  const fit = shortfall === undefined ? '' : fitText(shortfall.fit, shortfall.room, shortfall.estimate);
  return new GatewayError('key_limit_exceeded', `${head}${fit} ${resets}`);
}

/** Whose tokens-per-minute limit refused. */
export type TokenScope = 'account' | 'key' | 'end_user';

/**
 * 429 for a tokens-per-minute limit: Retry-After is when enough of the last minute's
 * reservations leave the window for this request's to fit (`retryAfterMs` undefined: the
 * request alone reserves more than the limit, so no wait helps).
 */
export function tokensLimited(scope: TokenScope, limit: number, used: number, need: number, retryAfterMs: number | undefined): GatewayError {
  const whose = { account: "the account's limit across its keys (account tpm)", key: "this key's limit (tpm)", end_user: "this end user's limit (end_user_limits.tpm)" }[scope];
  const head = `Rate limit reached: ${whose} of ${limit} tokens per minute.`;
  const counted = 'A request reserves its input tokens plus its output limit (max_tokens, else the model\'s), replaced by the tokens billed when it ends.';
  if (retryAfterMs === undefined) {
    return new GatewayError('rate_limited', `${head} This request alone reserves ${need} tokens; lower max_tokens or shorten the input. ${counted}`, { retryAfterSeconds: 60 });
  }
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  return new GatewayError('rate_limited', `${head} ${used} are reserved in the last minute and this request needs ${need}. Retry after ${seconds} s. ${counted}`, { retryAfterSeconds: seconds });
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
export type RateScope = 'key' | 'account' | 'end_user' | 'free_tier_minute' | 'free_tier_day';

/** 429 with a truthful Retry-After (a retry after it is admitted unless others used the room). */
export function rateLimited(scope: RateScope, limit: number, retryAfterMs: number): GatewayError {
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  const what = {
    key: `this key's limit of ${limit} requests per minute (rpm)`,
    account: `the account's limit of ${limit} requests per minute across its keys (account rpm)`,
    end_user: `this end user's limit of ${limit} requests per minute (end_user_limits.rpm)`,
    free_tier_minute: `the free tier's limit of ${limit} requests per minute`,
    free_tier_day: `the free tier's limit of ${limit} requests per UTC day`,
  }[scope];
  return new GatewayError('rate_limited', `Rate limit reached: ${what}. Retry after ${seconds} s.`, {
    retryAfterSeconds: seconds,
  });
}
