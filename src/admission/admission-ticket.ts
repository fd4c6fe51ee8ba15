import type { Logger } from 'pino';
import { type BilledUnits, type Clock, costLinesWire, type CostLineWire, priceUnits, SPEND_MIRRORS } from '../billing/index.js';
import type { CatalogModel } from '../catalog/index.js';
import type { KeyDoc } from '../accounts/index.js';
import type { ChargeOutcome, ChargeRequest } from '../ledger/index.js';
import type { Redis } from '../platform/redis/index.js';
import type { AdmissionKeys } from './admission-keys.js';
import { runScript } from './lua-commands.js';
import { SCRIPT_KEYS } from './script-keys.js';
import { type AdmitLimits, countsTokens } from './admit-limits.js';
import type { AdmissionTicket, SettleDetail } from './admission-types.js';
import { isGatewayError } from '../platform/errors/index.js';
import type { LeaseRefresher } from './lease-refresher.js';

/** The billed units that count against tokens-per-minute limits. */
const TOKEN_UNITS = ['prompt', 'completion', 'internal_reasoning', 'input_cache_read', 'input_cache_write', 'input_cache_write_1h'] as const;

/** Tokens billed, as tokens-per-minute limits count them. */
export function billedTokens(units: BilledUnits): number {
  return TOKEN_UNITS.reduce((sum, k) => sum + Math.max(0, Math.floor(units[k] ?? 0)), 0);
}

/** What a ticket is for: the request, its hold, and the limits it was admitted under. */
export interface TicketSubject {
  readonly requestId: string;
  readonly held: bigint;
  readonly key: KeyDoc;
  readonly model: CatalogModel;
  /** Absent: the key's own spend caps only (no account or end-user limits). */
  readonly limits?: AdmitLimits;
  /** The end user's id as the request named it. */
  readonly endUser?: string | undefined;
}

/** How long Redis remembers that a request's charge reached the mirrors. */
export const APPLIED_TTL_MS = 24 * 3600 * 1000;

/** What a ticket needs from the admission that issued it. */
export interface TicketContext {
  readonly redis: Redis;
  readonly keys: AdmissionKeys;
  readonly ledger: { charge(request: ChargeRequest): Promise<ChargeOutcome> };
  readonly clock: Clock;
  readonly log: Logger;
  readonly refresher: LeaseRefresher;
  /** Verifies the Redis generation, so freeing a hold finds it where it was re-placed. */
  readonly epoch?: { ready(accountId?: string): Promise<void> };
  /** How long a charge settled while its mirror was missing waits for the rebuild to count it. */
  readonly unappliedTtlMs: number;
}

/** The units that were metered (a plain object: for-in, not an array of entries per charge). */
function definedUnits(units: BilledUnits): Record<string, number> {
  const out: Record<string, number> = {};
  for (const k in units) {
    const v = units[k as keyof BilledUnits];
    if (typeof v === 'number') out[k] = v;
  }
  return out;
}

/** What a charge is for: the request, its hold, key, model and end user. */
export interface ChargeSubject {
  readonly requestId: string;
  readonly held: bigint;
  readonly key: KeyDoc;
  readonly model: CatalogModel;
  readonly endUserTag?: string | undefined;
}

/** What was metered: the cost, its units, the route's prices (or lines already priced) and when. */
export interface Metered {
  readonly metered: bigint;
  readonly units: BilledUnits;
  readonly priced: CatalogModel;
  readonly lines?: CostLineWire[] | undefined;
  readonly at: Date;
}

/**
 * Charges the ledger at most the hold: a metered cost above it (an upstream reporting more than
 * the request could use) is billed at the hold and the excess recorded as absorbed.
 */
export function chargeLedger(ledger: TicketContext['ledger'], subject: ChargeSubject, m: Metered): Promise<ChargeOutcome> {
  const cost = m.metered > subject.held ? subject.held : m.metered;
  return ledger.charge({
    requestId: subject.requestId,
    accountId: subject.key.account_id,
    keyId: subject.key._id,
    ...(subject.endUserTag === undefined ? {} : { endUserTag: subject.endUserTag }),
    model: subject.model.id,
    cost,
    ...(m.metered > cost ? { overLimit: m.metered - cost } : {}),
    units: definedUnits(m.units),
    // Lines priced where the units were metered are charged as they are: priced once.
    lines: m.lines ?? costLinesWire(priceUnits(m.priced, m.units).lines),
    priceVersion: m.priced.priceVersion,
    at: m.at,
  });
}

/** Whose admission state a FINISH touches: the request, its key, the limits it was admitted under. */
export interface FinishScope {
  readonly requestId: string;
  readonly key: KeyDoc;
  /** Absent: the key's own spend caps only. */
  readonly limits?: AdmitLimits | undefined;
  readonly endUserTag?: string | undefined;
}

/**
 * Runs FINISH for a request: frees its hold and slot, replaces its token reservation with
 * `tokens` (-1: keep it) and applies `outcome` to the mirrors once per request id; for a request
 * admitted from a slice, the slice (`slice`, its hold id) shrinks by the cost in the same step.
 * A duplicate outcome still applies: the per-request marker in FINISH stops a second
 * application, and an earlier attempt may have committed without reaching the mirrors.
 */
export async function runFinish(ctx: Pick<TicketContext, 'redis' | 'keys' | 'unappliedTtlMs'>, scope: FinishScope, outcome: ChargeOutcome | null, at: Date, tokens: number, slice = ''): Promise<void> {
  const { key, limits } = scope;
  const charged = outcome ? outcome.charged.toString() : '-1';
  const cost = outcome ? outcome.cost.toString() : '0';
  const { spendTracked, tracked } = trackedMirrors(scope);
  // What FINISH may leave unnamed: the token reservations when admission made none.
  const uses = limits === undefined ? undefined : { tokens: countsTokens(limits) };
  const keyScope = { accountId: key.account_id, keyId: key._id, requestId: scope.requestId, at, endUser: scope.endUserTag, spendTracked, uses };
  await runScript(ctx.redis, 'finish', SCRIPT_KEYS.finish(ctx.keys, keyScope), [
    ...[scope.requestId, charged, cost, APPLIED_TTL_MS, at.getTime(), ctx.unappliedTtlMs, tokens],
    ...[...tracked, outcome?.seq ?? '', slice],
  ]);
}

/**
 * The mirrors a charge of `scope` settles: every spend mirror a cap applies to (SPEND_MIRRORS'
 * order), and the scripts' tracked flags (the balance, always, then those).
 */
export function trackedMirrors(scope: FinishScope): { spendTracked: boolean[]; tracked: string[] } {
  const keyCaps = scope.key.limits.spend_cap ?? {};
  const caps = scope.limits?.caps ?? [keyCaps.lifetime, keyCaps.day, keyCaps.week, keyCaps.month];
  // Plain loops: this runs for every charge a slice settles, on its way to Redis.
  const spendTracked: boolean[] = [];
  const tracked = ['1'];
  for (let i = 0; i < SPEND_MIRRORS.length; i++) {
    const on = caps[i] !== undefined;
    spendTracked.push(on);
    tracked.push(on ? '1' : '0');
  }
  return { spendTracked, tracked };
}

/** Places one more hold for a running request (`id`: the extra hold's own id), under admission's checks. */
export type HoldGrower = (id: string, extra: bigint) => Promise<AdmissionTicket>;

/**
 * An admitted request. Settling charges the ledger first (durable, idempotent by request id)
 * and only then frees the hold, so admission never sees money as free before MongoDB has
 * taken it. Settling twice charges once; releasing after settling does nothing.
 */
export class RedisAdmissionTicket implements AdmissionTicket {
  private settlement: Promise<ChargeOutcome> | undefined;
  private freed = false;
  readonly requestId: string;
  private heldNow: bigint;
  /** Extra holds placed by `grow`: freed with the request's own, their room charged through it. */
  private readonly extras: AdmissionTicket[] = [];
  private readonly key: KeyDoc;
  private readonly model: CatalogModel;
  private readonly limits: AdmitLimits | undefined;
  private readonly endUserTag: string | undefined;

  constructor(
    private readonly ctx: TicketContext,
    subject: TicketSubject,
    private readonly grower?: HoldGrower,
  ) {
    this.requestId = subject.requestId;
    this.heldNow = subject.held;
    this.key = subject.key;
    this.model = subject.model;
    this.limits = subject.limits;
    this.endUserTag = subject.limits?.endUser || undefined;
  }

  settle(cost: bigint, units: BilledUnits, priced?: CatalogModel, detail?: SettleDetail): Promise<ChargeOutcome> {
    if (!this.settlement) {
      this.settlement = this.charge(cost, units, priced ?? this.model, detail?.lines).catch((err: unknown) => {
        // Nothing was charged: a later settle may try again (the ledger dedupes by id).
        this.settlement = undefined;
        throw err;
      });
    }
    return this.settlement;
  }

  /** What the request holds: its own hold and every extra one. */
  get held(): bigint {
    return this.heldNow;
  }

  /**
   * Places an extra hold of `extra` under the same checks as admission (balance, spend caps;
   * no request rate, no stream slot); the charge may then use it, and it is freed with the
   * request's own hold. A refusal holds nothing and answers false.
   */
  async grow(extra: bigint): Promise<boolean> {
    if (extra <= 0n) return true;
    if (this.settlement || this.freed || this.grower === undefined) return false;
    let ticket: AdmissionTicket;
    try {
      ticket = await this.grower(`${this.requestId}+${this.extras.length + 1}`, extra);
    } catch (err) {
      if (!isGatewayError(err)) this.ctx.log.warn({ err, request_id: this.requestId }, 'growing a hold failed');
      return false;
    }
    if (this.settlement || this.freed) {
      // The request ended while the extra hold was placed: it is not needed.
      await ticket.release();
      return false;
    }
    this.extras.push(ticket);
    this.heldNow += ticket.held;
    return true;
  }

  async release(charged?: ChargeOutcome): Promise<void> {
    if (this.settlement || this.freed) return;
    this.freed = true;
    // Nothing billed here: the token reservation becomes 0, unless a worker billed elsewhere.
    await this.finish(charged ?? null, this.ctx.clock(), charged === undefined ? 0 : -1);
  }

  async freeStreamSlot(): Promise<void> {
    if (this.freed) return;
    this.ctx.refresher.dropStream(this.requestId);
    try {
      await this.ctx.epoch?.ready(this.key.account_id);
      await this.ctx.redis.zrem(this.ctx.keys.streams(this.key.account_id, this.key._id), this.requestId);
    } catch (err) {
      // The lease is no longer renewed, so the slot lapses with it.
      this.ctx.log.warn({ err, request_id: this.requestId }, 'freeing a stream slot failed');
    }
  }

  /**
   * Charges at most the hold: a metered cost above it (an upstream reporting more than the
   * request could use) is billed at the hold and the excess recorded as absorbed.
   */
  private async charge(metered: bigint, units: BilledUnits, priced: CatalogModel, lines?: CostLineWire[]): Promise<ChargeOutcome> {
    const at = this.ctx.clock();
    let outcome: ChargeOutcome;
    try {
      outcome = await chargeLedger(this.ctx.ledger, { requestId: this.requestId, held: this.held, key: this.key, model: this.model, endUserTag: this.endUserTag }, { metered, units, priced, lines, at });
    } catch (err) {
      // The request is over either way; do not keep its hold and slot until they expire.
      if (!this.freed) {
        this.freed = true;
        await this.finish(null, at, -1);
      }
      throw err;
    }
    this.freed = true;
    await this.finish(outcome, at, billedTokens(units));
    return outcome;
  }

  /**
   * Frees hold and slot, replaces the token reservation with `tokens` (-1: keep it) and
   * applies a charge to the mirrors; Redis trouble only logs.
   */
  private async finish(outcome: ChargeOutcome | null, at: Date, tokens: number): Promise<void> {
    this.ctx.refresher.untrack(this.requestId);
    try {
      await this.ctx.epoch?.ready(this.key.account_id);
      await runFinish(this.ctx, { requestId: this.requestId, key: this.key, limits: this.limits, endUserTag: this.endUserTag }, outcome, at, tokens);
    } catch (err) {
      // The ledger already has the truth; the hold and slot lapse by TTL and mirrors re-sync.
      this.ctx.log.warn({ err, request_id: this.requestId }, 'freeing admission state failed');
    }
    // After the charge reached the mirrors: until then the extra holds keep its room taken.
    await Promise.all(this.extras.map((extra) => extra.release()));
  }
}
