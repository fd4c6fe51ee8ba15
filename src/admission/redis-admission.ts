import { GatewayError } from '../platform/errors/index.js';
import type { MongoClient } from 'mongodb';
import type { Logger } from 'pino';
import type { AccountCollections, KeyCollections, KeyDoc, KeyLiveUsage } from '../accounts/index.js';
import type { Clock } from '../billing/index.js';
import type { CatalogCache, CatalogModel } from '../catalog/index.js';
import type { Config } from '../platform/config/index.js';
import { chargesUnavailable, type LedgerCollections, type SpoolingLedger } from '../ledger/index.js';
import type { InvalidationBus, Redis } from '../platform/redis/index.js';
import { AdmissionKeys } from './admission-keys.js';
import { capReached, insufficientCredits, managementKey, notInAllowlist, notOnFreeTier, tokensLimited, tooManyStreams, type CapName, type TokenScope } from './admission-errors.js';
import { admitLimits, capOf, countsTokens, type AdmitLimits } from './admit-limits.js';
import { endUserInvalid, endUserMissing, endUserTag, MAX_END_USER_LENGTH } from './end-user.js';
import { RedisAdmissionTicket, type TicketContext } from './admission-ticket.js';
import type { Admission, AdmissionRequest, AdmissionTicket, Authorization } from './admission-types.js';
import { Authorizations } from './authorizations.js';
import { DeferredRate, type RateReport } from './deferred-rate.js';
import { AccountFactsCache, type AccountFacts } from './account-facts.js';
import { runScript } from './lua-commands.js';
import { LeaseRefresher } from './lease-refresher.js';
import { MirrorLoader, type MirrorName } from './mirrors.js';
import { RATE_WINDOW_MS, RateChecker, rateFigures, type RatePlan, UNLIMITED } from './rate-check.js';
import type { RateInfo } from './rate-info.js';
import { RedisEpoch } from './redis-epoch.js';
import { readLiveUsage } from './live-usage.js';
import { SCRIPT_KEYS } from './script-keys.js';

/** The ledger as admission uses it: charges on settle, and whether paid work may start. */
export type AdmissionLedger = Pick<SpoolingLedger, 'charge' | 'canCharge' | 'writable' | 'settled'>;

/** What admission needs from its process (`bus` and `catalog` are optional). */
export interface AdmissionDeps {
  readonly redis: Redis;
  readonly mongo: { readonly client: MongoClient };
  readonly c: AccountCollections & KeyCollections & LedgerCollections;
  readonly ledger: AdmissionLedger;
  readonly config: Pick<Config, 'redisPrefix' | 'freeTier' | 'holdTtlSeconds' | 'requestTiming' | 'ledgerAck'> & { readonly admission?: Config['admission'] };
  readonly clock: Clock;
  readonly log: Logger;
  /** Account invalidations (a top-up) drop the cached free-tier flag and balance mirror. */
  readonly bus?: Pick<InvalidationBus, 'subscribe' | 'publish'>;
  /** Lists the free-tier models for the refusal message. */
  readonly catalog?: Pick<CatalogCache, 'list'>;
}

/** Which path admits requests: every request in Redis, from slices, or from slices while Redis is unreachable. */
export type AdmissionMode = 'exact' | 'leased' | 'degraded';

/** How long a stream slot lives without a refresh (a crashed process frees it by then). */
const STREAM_LEASE_MS = 60_000;
/** Slots of a stream limit that is not set: effectively unlimited, still tracked. */
const NO_STREAM_LIMIT = 1_000_000_000;
/**
 * Missing mirrors are rebuilt and the script retried at most this often per request. A burst
 * on one account can see its mirrors rebuilt by other requests between its own tries (a
 * balance resync, a rewind), so a few tries are not enough; each try is one script run.
 */
const MAX_ATTEMPTS = 10;
/**
 * A refusal for the key's concurrent streams is decided again this many times, this far apart:
 * the slot of a stream whose client just left is freed within milliseconds of the close, on
 * whichever process served it.
 */
const STREAM_SLOT_WAITS = 3;
const STREAM_SLOT_WAIT_MS = 100;

type Reply = ['ok', string] | ['missing', ...MirrorName[]] | ['cap', CapName, string] | ['balance', string] | ['streams'] | ['rate'] | ['tpm', string, string, string, string];

const TOKEN_SCOPES: readonly TokenScope[] = ['account', 'key', 'end_user'];

/** The script's {rate figures (empty when it did not check the rate), status...}. */
interface AdmitReply {
  readonly rate: number[];
  readonly reply: Reply;
}

/**
 * Rate arguments of ADMIT that check nothing (the caller checked the rate already). The keys
 * are still the account's own rate keys, untouched, so every declared key shares its slot.
 */
const NO_RATE_ARGS = ['-', -1, -1, -1, RATE_WINDOW_MS, 0, -1] as const;

/** A pending rate check to fold into ADMIT, and the deferred check it settles (if any). */
interface PlannedRate {
  readonly plan: RatePlan;
  readonly deferred?: DeferredRate;
}

function parseReply(value: unknown): AdmitReply {
  if (!Array.isArray(value) || !Array.isArray(value[0]) || typeof value[1] !== 'string') throw new Error('unexpected admission script reply');
  return { rate: rateFigures(value[0]), reply: value.slice(1).map(String) as Reply };
}

/** What the leased path needs to know of a request (see RedisAdmission.leasePlan). */
export interface LeasePlan {
  readonly limits: AdmitLimits;
  /** Every limit that applies is a budget of money (balance and spend caps). */
  readonly moneyOnly: boolean;
}

/**
 * Admission control in Redis, shared by every web process: RPM and free-tier limits, spend
 * caps and balance with in-flight holds, and stream slots. Mirrors of MongoDB figures are
 * rebuilt on demand, so losing Redis loses no money: the ledger is the truth.
 */
export class RedisAdmission implements Admission {
  private readonly keys: AdmissionKeys;
  private readonly tiers: AccountFactsCache;
  private readonly mirrors: MirrorLoader;
  private readonly rates: RateChecker;
  private readonly refresher: LeaseRefresher;
  private readonly epoch: RedisEpoch;
  private readonly ticketContext: TicketContext;
  private readonly holdTtlMs: number;
  private readonly authorizations = new Authorizations();
  private readonly maxLeaseMs: number;
  /** The parts of this admission a leased admission builds on (read on every request it admits). */
  readonly parts: { readonly refresher: LeaseRefresher; readonly epoch: RedisEpoch; readonly ticketContext: TicketContext; readonly maxLeaseMs: number };

  constructor(private readonly deps: AdmissionDeps) {
    this.keys = new AdmissionKeys(deps.config.redisPrefix);
    this.tiers = new AccountFactsCache(deps.c, undefined, deps.ledger);
    this.rates = new RateChecker(deps.redis, this.keys, deps.config.freeTier, deps.clock);
    this.holdTtlMs = deps.config.holdTtlSeconds * 1000;
    // A lease outlives its request: the longest a request may run, the wait for its usage
    // after the client left, and one hold lifetime to settle in.
    const timing = deps.config.requestTiming;
    this.maxLeaseMs = timing.maxRequestMs + timing.usageGraceMs + this.holdTtlMs;
    this.mirrors = new MirrorLoader({ redis: deps.redis, client: deps.mongo.client, c: deps.c, keys: this.keys, settleWindowMs: this.holdTtlMs, spooledAcks: deps.config.ledgerAck === 'local', settled: () => deps.ledger.settled() });
    // Every lease is renewed well inside the shortest TTL: holds, stream slots, slices.
    const refreshMs = Math.max(1_000, Math.min(this.holdTtlMs, STREAM_LEASE_MS, deps.config.admission?.slices.ttlMs ?? Infinity) / 3);
    const containerTtlMs = Math.max(this.holdTtlMs, STREAM_LEASE_MS) * 2;
    const timings = { intervalMs: refreshMs, holdTtlMs: this.holdTtlMs, streamTtlMs: STREAM_LEASE_MS, containerTtlMs };
    this.refresher = new LeaseRefresher(deps.redis, this.keys, deps.clock, deps.log, timings);
    this.epoch = new RedisEpoch(deps.redis, this.keys, this.refresher, deps.log);
    this.ticketContext = { redis: deps.redis, keys: this.keys, ledger: deps.ledger, clock: deps.clock, log: deps.log, refresher: this.refresher, epoch: this.epoch, unappliedTtlMs: this.holdTtlMs * 2 };
    this.parts = { refresher: this.refresher, epoch: this.epoch, ticketContext: this.ticketContext, maxLeaseMs: this.maxLeaseMs };
    deps.bus?.subscribe((event) => {
      if (event.type !== 'account') return;
      this.tiers.forget(event.accountId);
      // A credit changed the balance in MongoDB: drop the mirror so the next request re-reads it.
      return this.mirrors.invalidateBalance(event.accountId);
    });
  }

  async checkRate(key: KeyDoc): Promise<RateInfo> {
    const facts = await this.tiers.get(key.account_id);
    const context = { freeTier: facts.freeTier, accountRpm: facts.limits.rpm };
    // No request-rate limit applies: nothing to count in Redis, so nothing to verify there.
    if (this.rates.plan(key, context, this.deps.clock()) === undefined) return UNLIMITED;
    await this.epoch.ready(key.account_id);
    return this.rates.check(key, context);
  }

  deferRate(key: KeyDoc, report: RateReport): DeferredRate {
    return new DeferredRate(() => this.checkRate(key), report);
  }

  /** At once when the model is free or the account's facts are cached (most requests), else once they are read. */
  authorize(key: KeyDoc, model: CatalogModel): Authorization | Promise<Authorization> {
    if (key.role === 'management') throw managementKey();
    const allowed = key.limits.models;
    if (allowed && !allowed.includes(model.id)) throw notInAllowlist(model, allowed);
    if (model.doc.free_tier) return this.authorizations.issue(key, model);
    const facts = this.tiers.peek(key.account_id);
    if (facts === undefined) return this.tiers.get(key.account_id).then((read) => this.authorizeFor(key, model, read));
    return this.authorizeFor(key, model, facts);
  }

  /** The proof for a paid model, or the free tier's refusal. */
  private authorizeFor(key: KeyDoc, model: CatalogModel, facts: AccountFacts): Authorization {
    if (facts.freeTier) throw notOnFreeTier(model, this.freeModels(key.limits.models));
    return this.authorizations.issue(key, model);
  }

  async admit(request: AdmissionRequest): Promise<AdmissionTicket> {
    const { key, model } = request;
    // Callers authorize first (before provider availability) and pass the proof; none: here.
    if (!this.authorizations.honours(request)) await this.authorize(key, model);
    // Paid work needs a charge that can commit: fail fast while MongoDB or the spool says no.
    if (!model.isFree && !this.deps.ledger.canCharge()) throw chargesUnavailable();
    // Never admit on state that may be stale: Redis may have restarted from an old snapshot.
    await this.epoch.ready(key.account_id);
    const facts = await this.tiers.get(key.account_id);
    const limits = admitLimits(key, facts.limits, this.endUserOf(request));
    const shortfall = (room: string) => ({ room: BigInt(room), estimate: request.estimate, fit: request.fit });
    const at = this.deps.clock();
    const rate = await this.planRate(request, facts, limits, at);
    let resynced = false;
    let streamWaits = 0;
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      // The generation the hold is placed in (Redis may be found rewound while the script runs).
      const generation = this.keys.generationOf(key.account_id);
      const { rate: figures, reply } = await this.runAdmit(request, at, limits, rate?.plan);
      // The rate check ran (counted, or refused) unless mirrors were missing: then it runs again.
      if (rate && reply[0] !== 'missing') this.settleRate(rate, figures);
      switch (reply[0]) {
        case 'ok':
          return this.issue(request, BigInt(reply[1]), generation, limits);
        case 'missing':
          await this.mirrors.load(reply.slice(1) as MirrorName[], key.account_id, key._id, at, limits.endUser || undefined);
          break;
        case 'cap':
          throw capReached(reply[1], capOf(limits, reply[1]), at, shortfall(reply[2]));
        case 'tpm': {
          const [, scope, limit, used, retryAt] = reply;
          const wait = Number(retryAt) > 0 ? Number(retryAt) - at.getTime() : undefined;
          throw tokensLimited(TOKEN_SCOPES[Number(scope) - 1] ?? 'key', Number(limit), Number(used), request.tokens ?? 0, wait);
        }
        case 'streams':
          // A slot may belong to a socket closed a moment ago (the client reconnecting at once):
          // its release is on its way, so the refusal waits for it, a bounded time.
          if (streamWaits++ >= STREAM_SLOT_WAITS) throw tooManyStreams(key.limits.concurrent_streams ?? NO_STREAM_LIMIT);
          await new Promise((resolve) => setTimeout(resolve, STREAM_SLOT_WAIT_MS));
          break;
        case 'rate':
          throw new Error('admission script refused on a rate it was not asked to check');
        case 'balance':
          // Refuse only on MongoDB's word: a top-up may not have reached the mirror yet.
          if (resynced || !(await this.mayResync(key.account_id))) throw insufficientCredits(shortfall(reply[1]));
          await this.mirrors.invalidateBalance(key.account_id);
          await this.mirrors.load(['balance'], key.account_id, key._id, at);
          resynced = true;
          break;
      }
    }
    // Still being rebuilt by others: a retry in a moment is the answer, not a 500.
    throw new GatewayError('service_unavailable', 'Admission state is being rebuilt; retry shortly', { retryAfterSeconds: 1 });
  }

  /** The end user's tag; a key with end-user limits refuses a request that names none. */
  private endUserOf(request: AdmissionRequest): string | undefined {
    const param = request.endUserParam ?? 'user';
    if (request.endUser === undefined) {
      if (request.key.limits.end_user_limits) throw endUserMissing(param);
      return undefined;
    }
    if (request.endUser.length === 0 || request.endUser.length > MAX_END_USER_LENGTH) throw endUserInvalid(param);
    return endUserTag(request.endUser);
  }

  /** Takes the outcome of a rate check ADMIT ran: reports it to the deferred check, or throws its 429. */
  private settleRate(rate: PlannedRate, figures: readonly number[]): void {
    const outcome = () => (figures.length > 0 ? this.rates.outcome(rate.plan, figures) : undefined);
    if (rate.deferred?.pending) rate.deferred.settle(outcome);
    else if (!rate.deferred) outcome();
  }

  /** In-flight holds and recent requests and tokens of a key, its account and an end user, for `GET /v1/key`. */
  async liveUsage(key: KeyDoc, endUser?: string): Promise<KeyLiveUsage> {
    await this.epoch.ready(key.account_id);
    const live = { redis: this.deps.redis, keys: this.keys, facts: this.tiers, clock: this.deps.clock, freeTierRpm: this.deps.config.freeTier.rpm };
    return readLiveUsage(live, key, endUser);
  }

  /**
   * What the leased path needs to know of a request before it may admit it from a slice: the
   * limits that apply, and whether every one of them is a budget of money (balance and spend
   * caps). Request and token rates, stream-slot limits and the free tier are counted here.
   * Throws the end-user refusals as admission does. At once when the account's facts are
   * cached (most requests), else once they are read.
   */
  leasePlan(request: AdmissionRequest): LeasePlan | Promise<LeasePlan> {
    const facts = this.tiers.peek(request.key.account_id);
    return facts === undefined ? this.tiers.get(request.key.account_id).then((read) => this.planFor(request, read)) : this.planFor(request, facts);
  }

  private planFor(request: AdmissionRequest, facts: AccountFacts): LeasePlan {
    const { key } = request;
    const limits = admitLimits(key, facts.limits, this.endUserOf(request));
    const user = limits.endUser === '' ? undefined : key.limits.end_user_limits;
    const rated = key.limits.rpm !== undefined || facts.limits.rpm !== undefined || user?.rpm !== undefined;
    const streamLimited = request.stream && key.limits.concurrent_streams !== undefined;
    return { limits, moneyOnly: !facts.freeTier && !rated && !countsTokens(limits) && !streamLimited };
  }

  /** Whether `authorize` already let this request's key use its model. */
  isAuthorized(request: AdmissionRequest): boolean {
    return this.authorizations.honours(request);
  }


  /** Redis key names of admission state, in the current generation (tests and tools). */
  get keyNames(): AdmissionKeys {
    return this.keys;
  }

  /** Always `exact`: every request is admitted in Redis. */
  mode(): AdmissionMode {
    return 'exact';
  }

  /** Nothing to hand back: holds end with their requests. */
  async drain(): Promise<void> {}

  /** Stops background refreshing (at shutdown). */
  close(): void {
    this.refresher.stop();
    this.epoch.stop();
  }

  /** Request ids whose holds and slots are still renewed (tests and diagnostics). */
  leasedRequests(): string[] {
    return this.refresher.tracked();
  }

  private freeModels(allowed: readonly string[] | undefined): string[] {
    const free = (this.deps.catalog?.list() ?? []).filter((m) => m.doc.free_tier).map((m) => m.id);
    return (allowed ? free.filter((id) => allowed.includes(id)) : free).sort();
  }

  private async mayResync(accountId: string): Promise<boolean> {
    const ok = await this.deps.redis.set(this.keys.balanceResync(accountId), '1', 'PX', 1_000, 'NX');
    return ok === 'OK';
  }

  /**
   * The rate check to run inside the admission script: the request's pending check (key,
   * account, free tier and end user), else the end user's rpm alone when the rest ran before.
   */
  private async planRate(request: AdmissionRequest, facts: AccountFacts, limits: AdmitLimits, at: Date): Promise<PlannedRate | undefined> {
    const { key } = request;
    const endUser = limits.endUser === '' ? undefined : limits.endUser;
    const endUserRpm = key.limits.end_user_limits?.rpm;
    const deferred = request.rate;
    // An extra hold of a running request is no new request: its rate was counted at admission.
    if (request.growing !== undefined) return undefined;
    if (deferred?.pending) {
      const plan = this.rates.plan(key, { freeTier: facts.freeTier, accountRpm: facts.limits.rpm, endUser, endUserRpm }, at);
      if (plan) return { deferred, plan };
      // No request-rate limit applies: nothing to count, no headers.
      deferred.settle(() => undefined);
      return undefined;
    }
    if (endUser === undefined || endUserRpm === undefined) return undefined;
    const plan = this.rates.plan(key, { freeTier: false, endUser, endUserRpm, onlyEndUser: true }, at);
    return plan ? { plan } : undefined;
  }

  private async runAdmit(request: AdmissionRequest, at: Date, limits: AdmitLimits, rate: RatePlan | undefined): Promise<AdmitReply> {
    const { key, model, requestId } = request;
    // A free model spends nothing, so neither caps nor balance can refuse it.
    const caps = limits.caps.map((value) => (model.isFree || value === undefined ? '-1' : value.toString()));
    const tpm = limits.tpm.map((t) => t ?? -1);
    const now = at.getTime();
    const streamLimit = request.stream ? (key.limits.concurrent_streams ?? NO_STREAM_LIMIT) : -1;
    const spendTracked = caps.map((c) => c !== '-1');
    const uses = { rate: rate !== undefined, tokens: countsTokens(limits), streams: streamLimit >= 0 };
    const scope = { accountId: key.account_id, keyId: key._id, requestId, at, endUser: limits.endUser || undefined, spendTracked, uses };
    const reply = await runScript(this.deps.redis, 'admit', SCRIPT_KEYS.admit(this.keys, scope), [
      ...[now, requestId, key._id, limits.endUser, request.estimate.toString(), model.isFree ? '0' : '1', streamLimit],
      ...[now + (request.leaseMs ?? this.holdTtlMs), now + STREAM_LEASE_MS, Math.max(this.holdTtlMs, STREAM_LEASE_MS) * 2, request.tokens ?? 0, ...tpm, ...caps],
      ...(rate?.args ?? NO_RATE_ARGS),
    ]);
    return parseReply(reply);
  }

  private issue(request: AdmissionRequest, held: bigint, generation: string, limits: AdmitLimits): AdmissionTicket {
    const { key, requestId } = request;
    const deadline = this.deps.clock().getTime() + this.maxLeaseMs;
    const endUser = limits.endUser || undefined;
    this.refresher.track({ requestId, accountId: key.account_id, keyId: key._id, endUser, held, stream: request.stream, deadline }, generation);
    const { endUser: named, endUserParam } = request;
    const grower = (id: string, extra: bigint): Promise<AdmissionTicket> =>
      this.admit({ requestId: id, key, model: request.model, estimate: extra, stream: false, growing: requestId, ...(named !== undefined ? { endUser: named } : {}), ...(endUserParam ? { endUserParam } : {}) });
    return new RedisAdmissionTicket(this.ticketContext, { requestId, held, key, model: request.model, limits, endUser: request.endUser }, grower);
  }
}


