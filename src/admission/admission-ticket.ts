import type { Logger } from 'pino';
import { type BilledUnits, type Clock, costLinesWire, type CostLineWire, priceUnits, SPEND_MIRRORS } from '../billing/index.js';
import type { CatalogModel } from '../catalog/index.js';
import type { KeyDoc } from '../accounts/index.js';
import type { ChargeOutcome, ChargeRequest } from '../ledger/index.js';
import type { Redis } from '../platform/redis/index.js';
import type { AdmissionKeys } from './admission-keys.js';
import { runScript } from './lua-commands.js';
import { type KeyScope, SCRIPT_KEYS } from './script-keys.js';
import { type AdmitLimits, countsTokens } from './admit-limits.js';
import type { AdmissionTicket, SettleDetail } from './admission-types.js';
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
const APPLIED_TTL_MS = 24 * 3600 * 1000;

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

function definedUnits(units: BilledUnits): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(units)) if (typeof v === 'number') out[k] = v;
  return out;
}

/**
 * An admitted request. Settling charges the ledger first (durable, idempotent by request id)
 * and only then frees the hold, so admission never sees money as free before MongoDB has
 * taken it. Settling twice charges once; releasing after settling does nothing.
 */
export class RedisAdmissionTicket implements AdmissionTicket {
  private settlement: Promise<ChargeOutcome> | undefined;
  private freed = false;
  readonly requestId: string;
  readonly held: bigint;
  private readonly key: KeyDoc;
  private readonly model: CatalogModel;
  private readonly limits: AdmitLimits | undefined;
  private readonly endUserTag: string | undefined;

  constructor(
    private readonly ctx: TicketContext,
    subject: TicketSubject,
  ) {
    this.requestId = subject.requestId;
    this.held = subject.held;
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
    const cost = metered > this.held ? this.held : metered;
    let outcome: ChargeOutcome;
    try {
      outcome = await this.ctx.ledger.charge({
        requestId: this.requestId,
        accountId: this.key.account_id,
        keyId: this.key._id,
        ...(this.endUserTag === undefined ? {} : { endUserTag: this.endUserTag }),
        model: this.model.id,
        cost,
        ...(metered > cost ? { overLimit: metered - cost } : {}),
        units: definedUnits(units),
        // Lines priced where the units were metered are charged as they are: priced once.
        lines: lines ?? costLinesWire(priceUnits(priced, units).lines),
        priceVersion: priced.priceVersion,
        at,
      });
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

  /** What FINISH may leave unnamed: the token reservations when admission made none. */
  private uses(): KeyScope['uses'] {
    return this.limits === undefined ? undefined : { tokens: countsTokens(this.limits) };
  }

  /**
   * Frees hold and slot, replaces the token reservation with `tokens` (-1: keep it) and
   * applies a charge to the mirrors; Redis trouble only logs.
   */
  private async finish(outcome: ChargeOutcome | null, at: Date, tokens: number): Promise<void> {
    this.ctx.refresher.untrack(this.requestId);
    const { keys } = this.ctx;
    const accountId = this.key.account_id;
    const keyId = this.key._id;
    // A duplicate outcome still applies: the per-request marker in FINISH stops a second
    // application, and an earlier attempt may have committed without reaching the mirrors.
    const charged = outcome ? outcome.charged.toString() : '-1';
    const cost = outcome ? outcome.cost.toString() : '0';
    const keyCaps = this.key.limits.spend_cap ?? {};
    const caps = this.limits?.caps ?? [keyCaps.lifetime, keyCaps.day, keyCaps.week, keyCaps.month];
    const spendTracked = Array.from({ length: SPEND_MIRRORS.length }, (_, i) => caps[i] !== undefined);
    const tracked = ['1', ...spendTracked.map((t) => (t ? '1' : '0'))];
    try {
      await this.ctx.epoch?.ready(accountId);
      await runScript(
        this.ctx.redis,
        'finish',
        SCRIPT_KEYS.finish(keys, { accountId, keyId, requestId: this.requestId, at, endUser: this.endUserTag, spendTracked, uses: this.uses() }),
        [this.requestId, charged, cost, APPLIED_TTL_MS, at.getTime(), this.ctx.unappliedTtlMs, tokens, ...tracked, outcome?.seq ?? ''],
      );
    } catch (err) {
      // The ledger already has the truth; the hold and slot lapse by TTL and mirrors re-sync.
      this.ctx.log.warn({ err, request_id: this.requestId }, 'freeing admission state failed');
    }
  }
}
