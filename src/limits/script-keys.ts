import type { AdmissionKeys } from './admission-keys.js';
import type { ScriptName } from './lua-commands.js';

/** Whose admission state a script call touches. */
export interface KeyScope {
  readonly accountId: string;
  readonly keyId: string;
  /** The request whose hold or charge it is (FINISH's applied marker). */
  readonly requestId: string;
  /** The time the periods (day, month) are taken from. */
  readonly at: Date;
}

/** The mirrors of one scope, in FINISH's order: balance, spend lifetime, day, month. */
export function mirrorsOf(k: AdmissionKeys, s: KeyScope): string[] {
  return [k.balance(s.accountId), k.spendLifetime(s.accountId, s.keyId), k.spendDay(s.accountId, s.keyId, s.at), k.spendMonth(s.accountId, s.keyId, s.at)];
}

function holdKeys(k: AdmissionKeys, a: string): string[] {
  return [k.holds(a), k.holdInfo(a), k.heldTotal(a), k.keyHeld(a)];
}

/** The rate keys of a scope: key log, account log, account day counter. */
export function rateKeys(k: AdmissionKeys, s: KeyScope): [string, string, string] {
  return [k.keyRequests(s.accountId, s.keyId), k.accountRequests(s.accountId), k.accountDay(s.accountId, s.at)];
}

/** The KEYS of a mirror's LOAD_MIRROR (and, first two of INVALIDATE_MIRROR: mirror, version). */
export function mirrorScriptKeys(k: AdmissionKeys, mirror: string): string[] {
  return [mirror, k.unapplied(mirror), k.baked(mirror), k.mirrorVersion(mirror)];
}

/**
 * The KEYS each admission script declares, in its order (see the KEYS line of each
 * `src/limits/lua/<name>-<n>.lua`). Everything but EPOCH lives under the account's hash tag,
 * so a script call touches one Redis Cluster slot; EPOCH touches only its own record.
 */
export const SCRIPT_KEYS: Readonly<Record<ScriptName, (k: AdmissionKeys, s: KeyScope) => string[]>> = {
  admit: (k, s) => {
    const [bal, life, day, month] = mirrorsOf(k, s) as [string, string, string, string];
    return [bal, ...holdKeys(k, s.accountId), life, day, month, k.streams(s.accountId, s.keyId), ...rateKeys(k, s)];
  },
  finish: (k, s) => {
    const mirrors = mirrorsOf(k, s);
    const [bal, ...spend] = mirrors;
    const tail = [k.applied(s.accountId, s.requestId), ...mirrors.map((m) => k.unapplied(m)), ...mirrors.map((m) => k.baked(m))];
    return [bal as string, ...holdKeys(k, s.accountId), k.streams(s.accountId, s.keyId), ...spend, ...tail];
  },
  rate: (k, s) => rateKeys(k, s),
  live: (k, s) => [...holdKeys(k, s.accountId), k.keyRequests(s.accountId, s.keyId), k.accountRequests(s.accountId)],
  'load-mirror': (k, s) => mirrorScriptKeys(k, k.balance(s.accountId)),
  'invalidate-mirror': (k, s) => mirrorScriptKeys(k, k.balance(s.accountId)).filter((_, i) => i === 0 || i === 3),
  epoch: (k) => [k.epoch()],
  place: (k, s) => [...holdKeys(k, s.accountId), k.streams(s.accountId, s.keyId)],
};
