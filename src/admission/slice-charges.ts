import type { ChargeOutcome } from '../ledger/index.js';
import { APPLIED_TTL_MS, type FinishScope, type TicketContext, trackedMirrors } from './admission-ticket.js';
import { runScript } from './lua-commands.js';
import { chargeKeysSignature, type KeyScope, SCRIPT_KEYS } from './script-keys.js';

/** A charge settled from a slice, on its way to Redis. */
export interface SliceCharge {
  readonly scope: FinishScope;
  readonly outcome: ChargeOutcome;
  readonly at: Date;
  /** The slice's hold id, to shrink by the cost once the charge applies; '' for none. */
  readonly shrink: string;
}

/** The most charges one call carries: a script holds Redis while it runs, so it stays short. */
export const CHARGES_PER_CALL = 64;

type Ctx = Pick<TicketContext, 'redis' | 'keys' | 'unappliedTtlMs'>;

function keyScopeOf(c: SliceCharge): KeyScope {
  const { key, requestId, endUserTag } = c.scope;
  return { accountId: key.account_id, keyId: key._id, requestId, at: c.at, endUser: endUserTag, spendTracked: trackedMirrors(c.scope).spendTracked };
}

/** A charge as the script reads it: its request id and figures in one argument, space-separated (see apply-slice-charges-38.lua). */
function figuresOf(c: SliceCharge): string {
  const { charged, cost, seq } = c.outcome;
  return `${c.scope.requestId} ${charged} ${cost} ${c.at.getTime()} ${seq ?? ''} ${c.shrink}`;
}

/**
 * The charges one call can carry together, in their order: those whose FINISH would name the
 * same keys but for their applied markers (see `chargeKeysSignature`), CHARGES_PER_CALL at most.
 */
function batchesOf<T extends SliceCharge>(charges: readonly T[]): T[][] {
  const groups = new Map<string, T[]>();
  for (const c of charges) {
    const signature = chargeKeysSignature(keyScopeOf(c));
    const group = groups.get(signature);
    if (group === undefined) groups.set(signature, [c]);
    else group.push(c);
  }
  const batches: T[][] = [];
  for (const group of groups.values()) {
    for (let i = 0; i < group.length; i += CHARGES_PER_CALL) batches.push(group.slice(i, i + CHARGES_PER_CALL));
  }
  return batches;
}

/** One APPLY_SLICE_CHARGES for a batch of one scope: the scope's keys, then each charge's marker. */
function applyBatch(ctx: Ctx, batch: readonly SliceCharge[]): Promise<unknown> {
  const first = batch[0];
  if (first === undefined) return Promise.resolve();
  const scope = keyScopeOf(first);
  const keys = SCRIPT_KEYS['apply-slice-charges'](ctx.keys, scope);
  const args: Array<string | number> = [APPLIED_TTL_MS, ctx.unappliedTtlMs, ...trackedMirrors(first.scope).tracked];
  for (const c of batch) {
    keys.push(ctx.keys.applied(scope.accountId, c.scope.requestId));
    args.push(figuresOf(c));
  }
  return runScript(ctx.redis, 'apply-slice-charges', keys, args);
}

/**
 * Carries charges settled from slices to Redis: each exactly as its own FINISH would (the
 * mirrors once per request id, the slice shrunk by the cost), but the charges of one scope
 * and period in one script call (pipelined: no call waits for another), which saves building,
 * sending and parsing a call of some forty keys per charge. The account's Redis generation
 * must be verified, and not change until this returns (key names are built at once).
 * Answers the charges whose call failed, in their order; the others landed.
 */
export async function sendSliceCharges<T extends SliceCharge>(ctx: Ctx, charges: readonly T[]): Promise<T[]> {
  const failed = new Set<T>();
  await Promise.all(
    batchesOf(charges).map((batch) =>
      applyBatch(ctx, batch).catch(() => {
        for (const c of batch) failed.add(c);
      }),
    ),
  );
  return charges.filter((c) => failed.has(c));
}
