import { utcDayNumber } from '../billing/index.js';
import type { ChargeOutcome } from '../ledger/index.js';
import { APPLIED_TTL_MS, type FinishScope, type TicketContext, trackedMirrors } from './admission-ticket.js';
import { runScript } from './lua-commands.js';
import { chargeKeysSignature, type KeyScope, SCRIPT_KEYS } from './script-keys.js';

/** A charge settled from a slice, on its way to Redis. */
export interface SliceCharge {
  readonly scope: FinishScope;
  readonly outcome: ChargeOutcome;
  readonly at: Date;
  /** The slice it was admitted from: its hold shrinks by the cost once the charge applies. */
  readonly slice: { readonly id: string };
  /** The account's Redis generation when it was settled: in a newer one the slice is not shrunk. */
  readonly generation: string;
}

/**
 * Charges that go to Redis in one script call, applied there once by `id`: the same charges,
 * whole, every time it is sent (see apply-slice-charges-39.lua).
 */
export interface ChargeBatch<T extends SliceCharge = SliceCharge> {
  readonly id: string;
  readonly charges: readonly T[];
}

/** The most charges one call carries: a script holds Redis while it runs, so it stays short. */
export const CHARGES_PER_CALL = 64;

type Ctx = Pick<TicketContext, 'redis' | 'keys' | 'unappliedTtlMs'>;

function keyScopeOf(c: SliceCharge, requestId: string): KeyScope {
  const { key, endUserTag } = c.scope;
  return { accountId: key.account_id, keyId: key._id, requestId, at: c.at, endUser: endUserTag, spendTracked: trackedMirrors(c.scope).spendTracked };
}

/**
 * A charge as the script reads it, one line: its request id and figures, space-separated, and
 * the slice to shrink unless the charge was settled in an older generation than `generation`:
 * the slice was placed again in the new one at its size by then, which no longer counted it.
 */
function lineOf(c: SliceCharge, generation: string): string {
  const { charged, cost, seq } = c.outcome;
  return `${c.scope.requestId} ${charged} ${cost} ${c.at.getTime()} ${seq ?? ''} ${c.generation === generation ? c.slice.id : ''}`;
}

interface Signed {
  readonly accountId: string;
  readonly keyId: string;
  readonly endUser: string | undefined;
  readonly day: number;
  readonly signature: string;
}

/** The last signature per limits object (one per key record, see admitLimits), with what else it was built from. */
const signatures = new WeakMap<object, Signed>();

/** The charge's `chargeKeysSignature`, built once per limits object and UTC day. */
function signatureOf(c: SliceCharge): string {
  const { limits, key, endUserTag } = c.scope;
  const day = utcDayNumber(c.at);
  const known = limits === undefined ? undefined : signatures.get(limits);
  if (known !== undefined && known.day === day && known.accountId === key.account_id && known.keyId === key._id && known.endUser === endUserTag) return known.signature;
  const signature = chargeKeysSignature(keyScopeOf(c, ''));
  if (limits !== undefined) signatures.set(limits, { accountId: key.account_id, keyId: key._id, endUser: endUserTag, day, signature });
  return signature;
}

/**
 * Groups charges of one account into the batches one call each can carry, in their order:
 * those whose FINISH would name the same keys but for their applied markers (see
 * `chargeKeysSignature`), CHARGES_PER_CALL at most; `nextId` names each batch.
 */
export function batchCharges<T extends SliceCharge>(charges: readonly T[], nextId: () => string): ChargeBatch<T>[] {
  const groups = new Map<string, T[]>();
  for (const c of charges) {
    const signature = signatureOf(c);
    const group = groups.get(signature);
    if (group === undefined) groups.set(signature, [c]);
    else group.push(c);
  }
  const batches: ChargeBatch<T>[] = [];
  for (const group of groups.values()) {
    for (let i = 0; i < group.length; i += CHARGES_PER_CALL) batches.push({ id: nextId(), charges: group.slice(i, i + CHARGES_PER_CALL) });
  }
  return batches;
}

/**
 * Sends one batch in one APPLY_SLICE_CHARGES: each charge exactly as its own FINISH would (its
 * hold and slot dropped, the mirrors charged, the slice shrunk by the cost), the batch once by
 * its marker. The account's Redis generation must be verified and equal `generation`, and not
 * change until this returns (key names are built at once).
 */
export function sendChargeBatch(ctx: Ctx, batch: ChargeBatch, generation: string): Promise<unknown> {
  const first = batch.charges[0];
  if (first === undefined) return Promise.resolve();
  const keys = SCRIPT_KEYS['apply-slice-charges'](ctx.keys, keyScopeOf(first, batch.id));
  const lines = batch.charges.map((c) => lineOf(c, generation)).join('\n');
  return runScript(ctx.redis, 'apply-slice-charges', keys, [APPLIED_TTL_MS, ctx.unappliedTtlMs, ...trackedMirrors(first.scope).tracked, lines]);
}
