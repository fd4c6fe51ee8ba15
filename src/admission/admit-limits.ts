import type { KeyDoc, SharedLimits } from '../accounts/index.js';
import { type CapName, SPEND_MIRRORS } from '../billing/index.js';

/** Every limit an admission checks for one request, in the scripts' orders. */
export interface AdmitLimits {
  /** Spend caps in SPEND_MIRRORS' order (undefined: none). */
  readonly caps: ReadonlyArray<bigint | undefined>;
  /** Tokens-per-minute limits: account, key, end user (undefined: none). */
  readonly tpm: readonly [number | undefined, number | undefined, number | undefined];
  /** The end user's tag ('' when the request names none). */
  readonly endUser: string;
}

/** The limits last built for a key record, and the account limits they were built under. */
interface Built {
  readonly account: SharedLimits;
  readonly limits: AdmitLimits;
}

/**
 * Limits of requests naming no end user, by key record. Key records and account limits come
 * from per-process caches, each object standing for one read of its document, so the same
 * pair always gives the same limits: a request of a known key reuses them instead of building
 * them again (and what is keyed by them, such as its slice holder's name, is found too).
 */
const built = new WeakMap<KeyDoc, Built>();

/**
 * The limits that apply to a request of `key` under an account with `account` limits, for
 * the end user tagged `endUser` (if any). End-user limits apply only to a named end user.
 * The result may be shared by every request of the key (its members are read-only).
 */
export function admitLimits(key: KeyDoc, account: SharedLimits, endUser: string | undefined): AdmitLimits {
  if (endUser !== undefined) return buildLimits(key, account, endUser);
  const last = built.get(key);
  if (last?.account === account) return last.limits;
  const limits = buildLimits(key, account, undefined);
  built.set(key, { account, limits });
  return limits;
}

function buildLimits(key: KeyDoc, account: SharedLimits, endUser: string | undefined): AdmitLimits {
  const user = endUser === undefined ? undefined : key.limits.end_user_limits;
  const keyCaps = key.limits.spend_cap ?? {};
  const caps = SPEND_MIRRORS.map((m) => {
    if (m.scope === 'key') return keyCaps[m.window];
    if (m.window === 'lifetime') return undefined;
    return (m.scope === 'account' ? account : user)?.spend_cap?.[m.window];
  });
  return { caps, tpm: [account.tpm, key.limits.tpm, user?.tpm], endUser: endUser ?? '' };
}

/** The cap of a mirror in these limits. */
export function capOf(limits: AdmitLimits, name: CapName): bigint {
  return limits.caps[SPEND_MIRRORS.findIndex((m) => m.name === name)] ?? 0n;
}

/** Whether any tokens-per-minute limit applies. */
export function countsTokens(limits: AdmitLimits): boolean {
  const [account, key, user] = limits.tpm;
  return account !== undefined || key !== undefined || user !== undefined;
}
