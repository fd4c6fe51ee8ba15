import { randomBytes } from 'node:crypto';
import { type Clock, nextDayStart } from '../billing/index.js';
import type { GatewayError } from '../platform/errors/index.js';
import type { KeyDoc } from '../accounts/index.js';
import type { Redis } from '../platform/redis/index.js';
import type { AdmissionKeys } from './admission-keys.js';
import { rateLimited, type RateScope } from './admission-errors.js';
import type { RateInfo } from './rate-info.js';
import { runScript } from './lua-commands.js';
import { rateKeys } from './script-keys.js';

/** The RPM window: any 60 s, not the calendar minute, so a burst cannot straddle two. */
export const RATE_WINDOW_MS = 60_000;

/** The figures of a request no request-rate limit applies to. */
export const UNLIMITED: RateInfo = { limit: 0, remaining: 0, resetAt: 0, unlimited: true };
const refusals = new WeakMap<GatewayError, RateInfo>();

/** The rate figures that went with a 429 from {@link RateChecker.check}, for its headers. */
export function rateInfoOf(err: unknown): RateInfo | undefined {
  return typeof err === 'object' && err !== null ? refusals.get(err as GatewayError) : undefined;
}

interface Window {
  limit: number;
  used: number;
  retryAt: number;
  oldest: number;
}

/**
 * One request's rate check, ready to run: the request-log keys and the arguments of the rate
 * part of a script (RATE alone, or folded into ADMIT). The member names the request in the
 * logs, so a script run again for the same request sees that it was counted already.
 */
export interface RatePlan {
  readonly keys: readonly [string, string, string, string];
  /**
   * member, key limit, account limit, day limit (-1 = none), window ms, day counter TTL ms,
   * end-user limit.
   */
  readonly args: readonly [string, number, number, number, number, number, number];
  readonly now: number;
  readonly dayEnd: number;
  /** Who set the account limit: the account's own rpm, or the free tier. */
  readonly accountScope: RateScope;
}

/** The request-rate limits beyond the key's own that apply to a request. */
export interface RateContext {
  readonly freeTier: boolean;
  /** The account's own rpm across its keys. */
  readonly accountRpm?: number | undefined;
  /** The end user's tag and the key's per-end-user rpm. */
  readonly endUser?: string | undefined;
  readonly endUserRpm?: number | undefined;
  /** Check the end user's rpm only (the key's and account's were checked before). */
  readonly onlyEndUser?: boolean;
}

/**
 * Rate figures a script replies: {admitted, keyCount, keyRetryAt, keyOldest, acctCount,
 * acctRetryAt, acctOldest, dayCount, userCount, userRetryAt, userOldest}.
 */
export function rateFigures(reply: unknown): number[] {
  if (!Array.isArray(reply)) throw new Error('unexpected rate script reply');
  return reply.map((v) => Number(v));
}

/** Per-key RPM and free-tier account limits over sliding request logs in Redis. */
export class RateChecker {
  private readonly nonce = randomBytes(6).toString('hex');
  private counter = 0;

  constructor(
    private readonly redis: Redis,
    private readonly keys: AdmissionKeys,
    private readonly freeTier: { readonly rpm: number; readonly perDay: number },
    private readonly clock: Clock,
  ) {}

  /** Counts the request or throws 429 `rate_limited` (with {@link rateInfoOf} figures). */
  async check(key: KeyDoc, context: RateContext): Promise<RateInfo> {
    const plan = this.plan(key, context, this.clock());
    if (!plan) return UNLIMITED;
    const reply = await runScript(this.redis, 'rate', plan.keys, [plan.now, ...plan.args]);
    return this.outcome(plan, rateFigures(reply));
  }

  /** The rate check of one request at `at`, or undefined when no request-rate limit applies. */
  plan(key: KeyDoc, context: RateContext, at: Date): RatePlan | undefined {
    const only = context.onlyEndUser === true;
    const keyLimit = only ? -1 : (key.limits.rpm ?? -1);
    const free = context.freeTier && !only ? this.freeTier.rpm : -1;
    const own = only ? -1 : (context.accountRpm ?? -1);
    // One account log serves both the account's own rpm and the free tier's: the lower counts.
    const accountLimit = own >= 0 && (free < 0 || own <= free) ? own : free;
    const accountScope: RateScope = own >= 0 && accountLimit === own ? 'account' : 'free_tier_minute';
    const dayLimit = context.freeTier && !only ? this.freeTier.perDay : -1;
    const userLimit = context.endUser !== undefined ? (context.endUserRpm ?? -1) : -1;
    if (keyLimit < 0 && accountLimit < 0 && userLimit < 0) return undefined;
    const now = at.getTime();
    const dayEnd = nextDayStart(at).getTime();
    return {
      keys: rateKeys(this.keys, { accountId: key.account_id, keyId: key._id, requestId: '', at, endUser: context.endUser }),
      args: [`${now}:${this.nonce}:${this.counter++}`, keyLimit, accountLimit, dayLimit, RATE_WINDOW_MS, dayEnd - now + 3_600_000, userLimit],
      now,
      dayEnd,
      accountScope,
    };
  }

  /** The figures for the headers when the script counted the request; else throws the 429. */
  outcome(plan: RatePlan, figures: readonly number[]): RateInfo {
    const { now, dayEnd } = plan;
    const [, keyLimit, accountLimit, dayLimit, , , userLimit] = plan.args;
    const [admitted = 0, kn = 0, kRetry = 0, kOld = 0, an = 0, aRetry = 0, aOld = 0, dn = 0, un = 0, uRetry = 0, uOld = 0] = figures;
    const windows: Window[] = [];
    if (keyLimit >= 0) windows.push({ limit: keyLimit, used: kn, retryAt: kRetry, oldest: kOld || now });
    if (accountLimit >= 0) windows.push({ limit: accountLimit, used: an, retryAt: aRetry, oldest: aOld || now });
    if (userLimit >= 0) windows.push({ limit: userLimit, used: un, retryAt: uRetry, oldest: uOld || now });
    const info = tightest(windows);
    if (admitted === 1) return info;
    throw this.refuse(info, now, [
      ['key', keyLimit, kRetry],
      [plan.accountScope, accountLimit, aRetry],
      ['end_user', userLimit, uRetry],
      ['free_tier_day', dayLimit, dayLimit >= 0 && dn >= dayLimit ? dayEnd : 0],
    ]);
  }

  /** The refusal that waits longest decides Retry-After: every blocking limit must clear. */
  private refuse(info: RateInfo, now: number, blocks: Array<[RateScope, number, number]>): GatewayError {
    let worst: [RateScope, number, number] = blocks[0] ?? ['key', 0, now + 1_000];
    for (const block of blocks) if (block[2] > worst[2]) worst = block;
    const err = rateLimited(worst[0], worst[1], worst[2] - now);
    const resetAt = Math.max(info.resetAt, Math.ceil(worst[2] / 1000));
    refusals.set(err, { ...info, remaining: 0, resetAt });
    return err;
  }
}

/** The window with the fewest requests left decides the headers. */
function tightest(windows: readonly Window[]): RateInfo {
  let best: RateInfo | undefined;
  for (const w of windows) {
    const info: RateInfo = {
      limit: w.limit,
      remaining: Math.max(w.limit - w.used, 0),
      resetAt: Math.ceil((w.oldest + RATE_WINDOW_MS) / 1000),
    };
    if (!best || info.remaining < best.remaining) best = info;
  }
  return best ?? UNLIMITED;
}
