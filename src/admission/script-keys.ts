import type { AdmissionKeys } from './admission-keys.js';
import type { ScriptName } from './lua-commands.js';
import { bucketOwner, periodOf, SPEND_MIRRORS, type SpendMirror, utcDayNumber } from '../billing/index.js';

/** Whose admission state a script call touches. */
export interface KeyScope {
  readonly accountId: string;
  readonly keyId: string;
  /** The request whose hold or charge it is (FINISH's applied marker); for APPLY_SLICE_CHARGES, the batch's id. */
  readonly requestId: string;
  /** The time the periods (day, week, month) are taken from. */
  readonly at: Date;
  /** The end user's tag (see `endUserTag`), when the request names one. */
  readonly endUser?: string | undefined;
  /**
   * Which spend mirrors the call uses, in SPEND_MIRRORS' order (a cap applies); absent: all.
   * The others are named by the account's bare hash tag, which the scripts never touch: most
   * keys have no caps, and naming 10–30 unused keys per call was much of what a request sent.
   */
  readonly spendTracked?: ReadonlyArray<boolean>;
  /**
   * Other state the call does not use (`false`; absent: used): the request logs (no rate
   * check runs), the token reservations (no tokens-per-minute limit), the stream slots (not a
   * stream). Named like untracked mirrors.
   */
  readonly uses?: { readonly rate?: boolean; readonly tokens?: boolean; readonly streams?: boolean };
}

/** The Redis key of one spend mirror of a scope. */
export function spendMirrorKey(k: AdmissionKeys, s: KeyScope, m: SpendMirror): string {
  if (m.window === 'lifetime') return k.spendLifetime(s.accountId, s.keyId);
  return k.spendOf(s.accountId, bucketOwner(m.scope, s), periodOf(m.window, s.at));
}

/**
 * The mirrors of one scope: the balance, then every spend mirror in SPEND_MIRRORS' order (an
 * untracked one as the unused name, see `KeyScope.spendTracked`).
 */
export function mirrorsOf(k: AdmissionKeys, s: KeyScope): string[] {
  const unused = k.unused(s.accountId);
  return [k.balance(s.accountId), ...SPEND_MIRRORS.map((m, i) => (s.spendTracked?.[i] === false ? unused : spendMirrorKey(k, s, m)))];
}

function holdKeys(k: AdmissionKeys, a: string): string[] {
  return [k.holds(a), k.holdInfo(a), k.heldTotal(a), k.keyHeld(a)];
}

/** The rate keys of a scope: key log, account log, account day counter, end-user log. */
export function rateKeys(k: AdmissionKeys, s: KeyScope): [string, string, string, string] {
  return [k.keyRequests(s.accountId, s.keyId), k.accountRequests(s.accountId), k.accountDay(s.accountId, s.at), k.endUserRequests(s.accountId, s.keyId, s.endUser ?? '-')];
}

/** The token reservation keys of a scope: the window's ZSET and its HASH of details and totals. */
function tokenKeys(k: AdmissionKeys, s: KeyScope): [string, string] {
  if (s.uses?.tokens === false) return [k.unused(s.accountId), k.unused(s.accountId)];
  return [k.tokens(s.accountId), k.tokenInfo(s.accountId)];
}

/** The unapplied and the baked keys beside each mirror (an unused name beside an unused one). */
function besideMirrors(k: AdmissionKeys, accountId: string, mirrors: readonly string[]): { unapplied: string[]; baked: string[] } {
  const unused = k.unused(accountId);
  const beside = (suffix: (m: string) => string) => mirrors.map((m) => (m === unused ? unused : suffix(m)));
  return { unapplied: beside((m) => k.unapplied(m)), baked: beside((m) => k.baked(m)) };
}

/**
 * What the KEYS of APPLY_SLICE_CHARGES of a scope depend on but for the batch's marker, once the
 * account's Redis generation is fixed: its account, key and end user, which spend mirrors it tracks, and the
 * UTC day of `at` when it tracks a calendar mirror (each period follows from it). Two scopes
 * with the same signature name the same keys, so their charges can share one call.
 */
export function chargeKeysSignature(s: Pick<KeyScope, 'accountId' | 'keyId' | 'endUser' | 'at' | 'spendTracked'>): string {
  let tracked = '';
  let calendar = false;
  for (const [i, m] of SPEND_MIRRORS.entries()) {
    const on = s.spendTracked?.[i] !== false;
    tracked += on ? '1' : '0';
    calendar ||= on && m.window !== 'lifetime';
  }
  // Every calendar period (day, week, month) follows from the UTC day: one division per
  // charge instead of formatting each tracked period's id.
  const day = calendar ? utcDayNumber(s.at) : '';
  return `${s.accountId}\u0000${s.keyId}\u0000${s.endUser ?? ''}\u0000${tracked}\u0000${day}`;
}

/** The KEYS of a mirror's LOAD_MIRROR (and, first two of INVALIDATE_MIRROR: mirror, version). */
export function mirrorScriptKeys(k: AdmissionKeys, mirror: string): string[] {
  return [mirror, k.unapplied(mirror), k.baked(mirror), k.mirrorVersion(mirror)];
}

/**
 * The KEYS each admission script declares, in its order (see the KEYS line of each
 * `src/admission/lua/<name>-<n>.lua`). Everything but EPOCH lives under the account's hash tag,
 * so a script call touches one Redis Cluster slot; EPOCH touches only its own record.
 */
export const SCRIPT_KEYS: Readonly<Record<ScriptName, (k: AdmissionKeys, s: KeyScope) => string[]>> = {
  admit: (k, s) => {
    const [bal, ...spend] = mirrorsOf(k, s);
    const a = s.accountId;
    const unused = k.unused(a);
    const streams = s.uses?.streams === false ? unused : k.streams(a, s.keyId);
    const rate = s.uses?.rate === false ? [unused, unused, unused, unused] : rateKeys(k, s);
    return [bal as string, ...holdKeys(k, a), streams, ...rate, ...tokenKeys(k, s), ...spend];
  },
  finish: (k, s) => {
    const mirrors = mirrorsOf(k, s);
    const a = s.accountId;
    const { unapplied, baked } = besideMirrors(k, a, mirrors);
    return [...mirrors, ...holdKeys(k, a), k.streams(a, s.keyId), ...tokenKeys(k, s), k.applied(a, s.requestId), ...unapplied, ...baked];
  },
  'apply-slice-charges': (k, s) => {
    const mirrors = mirrorsOf(k, s);
    const a = s.accountId;
    const { unapplied, baked } = besideMirrors(k, a, mirrors);
    return [...mirrors, ...holdKeys(k, a), k.streams(a, s.keyId), ...unapplied, ...baked, k.appliedBatch(a, s.requestId)];
  },
  rate: (k, s) => rateKeys(k, s),
  live: (k, s) => [...holdKeys(k, s.accountId), ...rateKeys(k, s).filter((_, i) => i !== 2), k.tokens(s.accountId), k.tokenInfo(s.accountId)],
  'load-mirror': (k, s) => mirrorScriptKeys(k, k.balance(s.accountId)),
  'invalidate-mirror': (k, s) => mirrorScriptKeys(k, k.balance(s.accountId)).filter((_, i) => i === 0 || i === 3),
  epoch: (k) => [k.epoch()],
  place: (k, s) => [...holdKeys(k, s.accountId), k.streams(s.accountId, s.keyId)],
  shrink: (k, s) => holdKeys(k, s.accountId),
};
