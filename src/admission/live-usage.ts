import type { Clock } from '../billing/index.js';
import type { KeyDoc, KeyLiveUsage } from '../accounts/index.js';
import type { Redis } from '../platform/redis/index.js';
import type { AccountFactsCache } from './account-facts.js';
import type { AdmissionKeys } from './admission-keys.js';
import { endUserTag } from './end-user.js';
import { runScript } from './lua-commands.js';
import { RATE_WINDOW_MS } from './rate-check.js';
import { SCRIPT_KEYS } from './script-keys.js';

/** What reading live usage needs from admission. */
export interface LiveUsageDeps {
  readonly redis: Redis;
  readonly keys: AdmissionKeys;
  readonly facts: AccountFactsCache;
  readonly clock: Clock;
  readonly freeTierRpm: number;
}

/**
 * In-flight holds, requests of the last minute and tokens of the last minute of a key, its
 * account and (when named) one of its end users, for `GET /v1/key`: what admission counts.
 */
export async function readLiveUsage(d: LiveUsageDeps, key: KeyDoc, endUser?: string): Promise<KeyLiveUsage> {
  const tag = endUser === undefined ? undefined : endUserTag(endUser);
  const at = d.clock();
  const reply = await runScript(
    d.redis,
    'live',
    SCRIPT_KEYS.live(d.keys, { accountId: key.account_id, keyId: key._id, requestId: '', at, endUser: tag }),
    [at.getTime(), key._id, RATE_WINDOW_MS, tag ?? ''],
  );
  const v = Array.isArray(reply) ? reply.map(String) : [];
  const int = (i: number) => Number(v[i] ?? 0) || 0;
  const big = (i: number) => BigInt(v[i] ?? '0');
  const facts = await d.facts.get(key.account_id);
  const useAccount = key.limits.rpm === undefined && facts.freeTier;
  return {
    heldUsd: big(0),
    requestsThisMinute: useAccount ? int(2) : int(1),
    minuteLimit: key.limits.rpm ?? (facts.freeTier ? d.freeTierRpm : undefined),
    shared: {
      keyTokens: int(7),
      accountLimits: facts.limits,
      accountHeldUsd: big(3),
      accountRequests: int(2),
      accountTokens: int(6),
      ...(endUser === undefined || tag === undefined ? {} : { endUser: { id: endUser, tag, heldUsd: big(4), requests: int(5), tokens: int(8) } }),
    },
  };
}
