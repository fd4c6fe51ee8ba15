import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { KeyDoc, KeyLiveUsage } from '../accounts/index.js';
import type { Clock } from '../billing/index.js';
import type { CatalogModel } from '../catalog/index.js';
import { chargesUnavailable } from '../ledger/index.js';
import { isGatewayError } from '../platform/errors/index.js';
import { andThen } from '../platform/util/index.js';
import type { InvalidationBus, Redis } from '../platform/redis/index.js';
import type { AdmissionKeys } from './admission-keys.js';
import type { Admission, AdmissionRequest, AdmissionTicket, Authorization } from './admission-types.js';
import type { AdmitLimits } from './admit-limits.js';
import { DeferredRate, type RateReport } from './deferred-rate.js';
import { LeasedTicket } from './leased-ticket.js';
import { runScript } from './lua-commands.js';
import { SCRIPT_KEYS } from './script-keys.js';
import type { RateInfo } from './rate-info.js';
import type { AdmissionLedger, AdmissionMode, LeasePlan, RedisAdmission } from './redis-admission.js';
import { Slice } from './slice.js';
import { SliceBook, type SliceSettings } from './slice-book.js';
import { SliceFlusher } from './slice-flusher.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What the leased path needs besides the exact one it builds on. */
export interface LeasedAdmissionDeps {
  readonly redis: Redis;
  readonly ledger: Pick<AdmissionLedger, 'canCharge'>;
  readonly clock: Clock;
  readonly log: Logger;
  readonly slices: SliceSettings;
  /** Asks the other processes to hand back what they hold of an account near a limit. */
  readonly bus?: Pick<InvalidationBus, 'publish' | 'subscribe'>;
}

/** After a slice was refused (a cap or the balance is near), the holder stays on the exact path this long. */
const EXACT_AFTER_REFUSAL_MS = 1_000;
/** How long a process near a limit gives the others to hand their unused room back before the exact path decides. */
const HAND_BACK_PAUSE_MS = 30;
/** The longest a request's end waits for its retired slice to be handed back. */
const HAND_BACK_WAIT_MS = 1_000;
/** How many idle periods a refusal near a limit waits, at most, for a slice held elsewhere to come back. */
const HELD_ELSEWHERE_IDLES = 3;
/**
 * Sweeps per idle period: an idle slice goes back within a quarter period of going idle, so a
 * process that missed a hand-back returns its room 1¼ idle periods after it last used it.
 */
const SWEEPS_PER_IDLE = 4;
/** A refusal waiting for room held elsewhere is decided again this many times per idle period. */
const REDECIDES_PER_IDLE = 8;
/** Tries to find room (a slice granted meanwhile, or a new one) before the exact path decides. */
const GRANT_TRIES = 3;
/** Refusals a slice may get that only mean "near a limit": the exact path decides the request. */
const NEAR_LIMIT: ReadonlySet<string> = new Set(['key_limit_exceeded', 'insufficient_credits']);

/** Holder names by the limits they were built from. */
const holderNames = new WeakMap<AdmitLimits, string>();

/**
 * The name of a holder: the account, key and end user whose budgets a slice draws on, under
 * the caps in force (a changed cap is a new holder, so a slice granted under the old caps is
 * never spent under the new ones).
 */
function holderOf(key: KeyDoc, limits: AdmitLimits): string {
  const known = holderNames.get(limits);
  if (known !== undefined) return known;
  const name = `${accountPrefix(key.account_id)}${key._id}\u0000${limits.endUser}\u0000${limits.caps.join(',')}`;
  // Limits naming no end user are one object per key record (see admitLimits): its holder's name is built once.
  if (limits.endUser === '') holderNames.set(limits, name);
  return name;
}

/** The smallest spend cap that applies, nano-USD. */
function smallestCap(limits: AdmitLimits): bigint | undefined {
  let least: bigint | undefined;
  for (const cap of limits.caps) if (cap !== undefined && (least === undefined || cap < least)) least = cap;
  return least;
}

/** How every holder name of an account starts. */
function accountPrefix(accountId: string): string {
  return `${accountId}\u0000`;
}

/**
 * Admission from escrowed slices (`ADMISSION=leased`). Redis stays the one authority: each
 * slice is a hold placed by the exact path, so Redis grants it only out of what no other
 * slice, hold or charge has taken, across every process. A request whose worst case fits a
 * slice this process holds is admitted in-process, without a round trip; its charge goes to
 * the ledger as always, and on to Redis in the background. Requests limited by more than money
 * (request or token rates, stream slots, the free tier), free models, and holders near a limit
 * (a slice was refused) take the exact path, so a refusal is as exact as there. While Redis is
 * unreachable, slices are spent until used up or within a margin of their TTL; then requests
 * get the exact path's 503.
 */
export class LeasedAdmission implements Admission {
  private readonly book: SliceBook;
  private readonly flusher: SliceFlusher;
  private readonly sweeper: NodeJS.Timeout;
  private readonly process = randomBytes(6).toString('base64url');
  private granted = 0;
  private readonly granting = new Map<string, Promise<Slice | undefined>>();
  /** The last hand-back of a holder, reused while the holder is on the exact path. */
  private readonly handingBack = new Map<string, Promise<void>>();
  /** The holds of requests admitted from slices and still running, by request id. */
  private readonly running = new Map<string, bigint>();
  private lastMode: AdmissionMode = 'leased';

  constructor(
    private readonly exact: RedisAdmission,
    private readonly deps: LeasedAdmissionDeps,
  ) {
    this.book = new SliceBook(deps.slices);
    const { epoch, ticketContext } = exact.parts;
    this.flusher = new SliceFlusher(ticketContext, epoch, deps.log);
    this.sweeper = setInterval(() => this.sweep(), Math.max(25, Math.floor(deps.slices.idleMs / SWEEPS_PER_IDLE)));
    this.sweeper.unref();
    deps.bus?.subscribe((event) => (event.type === 'slices' ? this.handBack(event.accountId) : undefined));
  }

  checkRate(key: KeyDoc): Promise<RateInfo> {
    return this.exact.checkRate(key);
  }

  deferRate(key: KeyDoc, report: RateReport): DeferredRate {
    return new DeferredRate(() => this.exact.checkRate(key), report);
  }

  authorize(key: KeyDoc, model: CatalogModel): Authorization | Promise<Authorization> {
    return this.exact.authorize(key, model);
  }

  /**
   * A ticket at once when a held slice has the room (no promise, no turn of the microtask
   * queue), else a promise; refusals always come as a rejected promise.
   */
  admit(request: AdmissionRequest): AdmissionTicket | Promise<AdmissionTicket> {
    try {
      if (request.model.isFree) return this.exact.admit(request);
      if (!this.exact.isAuthorized(request)) return this.admitAuthorized(request);
      return andThen(this.exact.leasePlan(request), (plan) => this.admitPlanned(request, plan));
    } catch (err) {
      return Promise.reject(err);
    }
  }

  private async admitAuthorized(request: AdmissionRequest): Promise<AdmissionTicket> {
    return this.admit({ ...request, authorized: await this.exact.authorize(request.key, request.model) });
  }

  private admitPlanned(request: AdmissionRequest, plan: LeasePlan): AdmissionTicket | Promise<AdmissionTicket> {
    const holder = holderOf(request.key, plan.limits);
    if (!plan.moneyOnly) {
      this.deps.log.debug({ request_id: request.requestId }, 'admitted on the exact path');
      return this.exact.admit(request);
    }
    const now = this.now();
    // A holder near a limit: decided as a refused slice's request is, so one that arrives after
    // the refusal also waits for the room still parked in another process's slice.
    if (this.book.exact(holder, now)) return this.exactNearLimit(holder, request);
    if (!this.deps.ledger.canCharge()) throw chargesUnavailable();
    // Money is all that limits this request: no request rate to count.
    if (request.rate?.pending) request.rate.settle(() => undefined);
    const slice = this.book.take(holder, request.estimate, this.renewedAt, now);
    if (slice !== undefined) return this.fromSlice(request, plan.limits, holder, slice, now);
    // Only a grant waits for Redis.
    return this.grantedSlice(holder, request, plan.limits).then((granted) =>
      granted === undefined ? this.exactNearLimit(holder, request) : this.fromSlice(request, plan.limits, holder, granted, this.now()),
    );
  }

  /** The ticket of a request admitted from `slice`, which it has taken its hold from. */
  private fromSlice(request: AdmissionRequest, limits: AdmitLimits, holder: string, slice: Slice, now: number): LeasedTicket {
    if (this.book.wantsMore(holder, request.estimate, this.renewedAt, now, smallestCap(limits))) {
      // Topped up ahead of need, off this request's path.
      void this.grant(holder, request, limits)
        .catch((err: unknown) => this.deps.log.debug({ err }, 'slice top-up failed'))
        .finally(() => this.book.grown(holder));
    }
    const subject = { requestId: request.requestId, held: request.estimate, key: request.key, model: request.model, limits, endUserTag: limits.endUser || undefined };
    this.running.set(request.requestId, request.estimate);
    const ended = (s: Slice) => {
      this.running.delete(subject.requestId);
      return this.ended(s);
    };
    const { authorized, endUser, endUserParam } = request;
    // A request that must grow beyond its slice moves to the exact path under its own id.
    const exact = (requestId: string, estimate: bigint): Promise<AdmissionTicket> =>
      this.exact.admit({ requestId, key: request.key, model: request.model, estimate, stream: false, growing: requestId, ...(authorized ? { authorized } : {}), ...(endUser !== undefined ? { endUser } : {}), ...(endUserParam ? { endUserParam } : {}) });
    return new LeasedTicket({ ledger: this.exact.parts.ticketContext.ledger, clock: this.deps.clock, flusher: this.flusher, ended, exact }, subject, slice);
  }

  /**
   * What the exact path reads, less the room this process's slices hold unused: in flight is
   * what running requests hold. (Other processes' unused slices still count until handed back.)
   */
  async liveUsage(key: KeyDoc, endUser?: string): Promise<KeyLiveUsage> {
    const live = await this.exact.liveUsage(key, endUser);
    const unused = (match: (slice: Slice) => boolean) => this.book.all().reduce((sum, slice) => (match(slice) ? sum + slice.room : sum), 0n);
    const ofAccount = (slice: Slice) => slice.owner.accountId === key.account_id;
    const ofKey = (slice: Slice) => ofAccount(slice) && slice.owner.keyId === key._id;
    const { shared } = live;
    const heldUsd = live.heldUsd - unused(ofKey);
    if (shared === undefined) return { ...live, heldUsd };
    const user = shared.endUser;
    return {
      ...live,
      heldUsd,
      shared: {
        ...shared,
        accountHeldUsd: shared.accountHeldUsd - unused(ofAccount),
        ...(user === undefined ? {} : { endUser: { ...user, heldUsd: user.heldUsd - unused((s) => ofKey(s) && s.owner.endUser === user.tag) } }),
      },
    };
  }

  get keyNames(): AdmissionKeys {
    return this.exact.keyNames;
  }

  leasedRequests(): string[] {
    return this.exact.leasedRequests();
  }

  /** What a request admitted from a slice holds while it runs (tests and diagnostics). */
  runningHold(requestId: string): bigint | undefined {
    return this.running.get(requestId);
  }

  /** Slices held now (tests and diagnostics). */
  slices(): Slice[] {
    return this.book.all();
  }

  /** `leased`, or `degraded` while Redis is unreachable and requests are admitted on held slices. */
  mode(): AdmissionMode {
    return this.deps.redis.status === 'ready' ? 'leased' : 'degraded';
  }

  /** Hands every slice back once its charges reached Redis (at shutdown), within `ms`. */
  async drain(ms: number): Promise<void> {
    const now = this.now();
    for (const slice of this.book.all()) slice.retired = true;
    for (const slice of this.book.sweep(this.renewedAt, now)) void this.flusher.release(slice);
    await this.flusher.drain(ms);
  }

  close(): void {
    clearInterval(this.sweeper);
    this.exact.close();
  }

  private now(): number {
    return this.deps.clock().getTime();
  }

  private get renewedAt(): number {
    return this.exact.parts.refresher.renewedAt;
  }

  /**
   * A slice of the holder with room for the request, once none it holds had the room: one
   * being granted, or a new one.
   */
  private async grantedSlice(holder: string, request: AdmissionRequest, limits: AdmitLimits): Promise<Slice | undefined> {
    for (let tries = 0; tries < GRANT_TRIES; tries++) {
      const pending = this.granting.get(holder) ?? this.grant(holder, request, limits);
      if ((await pending) === undefined) return undefined;
      const taken = this.book.take(holder, request.estimate, this.renewedAt, this.now());
      if (taken !== undefined) return taken;
    }
    return undefined;
  }

  /**
   * Asks Redis for a slice sized to the holder's demand, through the exact path (every cap and
   * the balance, atomically). Near a limit the holder goes to the exact path for a while.
   */
  private grant(holder: string, request: AdmissionRequest, limits: AdmitLimits): Promise<Slice | undefined> {
    const granting = this.placeSlice(holder, request, limits).finally(() => this.granting.delete(holder));
    // Whoever waits on it sees a failure; the map's copy must not count as unhandled.
    granting.catch(() => undefined);
    this.granting.set(holder, granting);
    return granting;
  }

  private async placeSlice(holder: string, request: AdmissionRequest, limits: AdmitLimits): Promise<Slice | undefined> {
    const { key, model } = request;
    const size = this.book.sizeFor(holder, request.estimate, this.now(), smallestCap(limits));
    // A cap too small for a slice of a few requests: the exact path, every time.
    if (size === undefined) return undefined;
    const id = `slice_${this.process}_${(this.granted++).toString(36)}`;
    let ticket: AdmissionTicket;
    try {
      const { authorized, endUser, endUserParam } = request;
      ticket = await this.exact.admit({ requestId: id, key, model, estimate: size, stream: false, leaseMs: this.deps.slices.ttlMs, ...(authorized ? { authorized } : {}), ...(endUser !== undefined ? { endUser } : {}), ...(endUserParam ? { endUserParam } : {}) });
    } catch (err) {
      if (!isGatewayError(err) || !NEAR_LIMIT.has(err.code)) throw err;
      this.deps.log.debug({ account_id: key.account_id, key_id: key._id, code: err.code, size: size.toString() }, 'slice refused: near a limit, taking the exact path');
      await this.handBackOnce(holder, key);
      return undefined;
    }
    if (this.book.exact(holder, this.now())) {
      // Near a limit since it was asked for: the room goes back at once.
      await ticket.release();
      return undefined;
    }
    const slice = new Slice(id, size, ticket, this.now(), { accountId: key.account_id, keyId: key._id, endUser: limits.endUser });
    this.book.add(holder, slice);
    this.follow(slice);
    return slice;
  }

  /**
   * The exact path for a request no slice took (near a limit, or more requests at once than the
   * slices granted so far could hold). A refusal there is decided again once every process
   * handed back the unused room of its slices: what a slice held a moment ago is then seen, so
   * a burst that fits a limit exactly is not refused for room parked in slices.
   */
  private async exactNearLimit(holder: string, request: AdmissionRequest): Promise<AdmissionTicket> {
    try {
      return await this.exact.admit(request);
    } catch (err) {
      if (!isGatewayError(err) || !NEAR_LIMIT.has(err.code)) throw err;
    }
    await this.handBackOnce(holder, request.key);
    // Room may still sit in a slice of a process that missed the hand-back (its message is
    // lost while Redis reconnects, or its sweep runs late on a busy machine): that slice goes
    // back once idle, so a refusal is decided again while something beyond this process's own
    // requests is held, for a bounded time.
    // Real time, not the clock that dates charges (a test may hold that one still).
    const until = performance.now() + this.deps.slices.idleMs * HELD_ELSEWHERE_IDLES;
    for (;;) {
      try {
        return await this.exact.admit(request);
      } catch (err) {
        if (!isGatewayError(err) || !NEAR_LIMIT.has(err.code) || performance.now() >= until || !(await this.heldElsewhere(request.key))) throw err;
      }
      await sleep(Math.max(10, this.deps.slices.idleMs / REDECIDES_PER_IDLE));
    }
  }

  /** Whether Redis holds more for the key or its account than this process's slices reserve for it. */
  private async heldElsewhere(key: KeyDoc): Promise<boolean> {
    const k = this.exact.keyNames;
    const redis = this.exact.parts.ticketContext.redis;
    const [ofKey, ofAccount] = await Promise.all([redis.hget(k.keyHeld(key.account_id), key._id), redis.get(k.heldTotal(key.account_id))]);
    let mineOfKey = 0n;
    let mineOfAccount = 0n;
    for (const slice of this.book.all()) {
      if (slice.owner.accountId !== key.account_id) continue;
      mineOfAccount += slice.size;
      if (slice.owner.keyId === key._id) mineOfKey += slice.size;
    }
    return BigInt(ofKey ?? '0') > mineOfKey || BigInt(ofAccount ?? '0') > mineOfAccount;
  }

  /**
   * One hand-back (see nearLimit) for the refusals of a holder while it is on the exact path:
   * they all wait for it, then decide again, instead of each asking every process once more.
   */
  private handBackOnce(holder: string, key: KeyDoc): Promise<void> {
    const handing = this.handingBack.get(holder);
    if (handing !== undefined && this.book.exact(holder, this.now())) return handing;
    const next = this.nearLimit(holder, key);
    this.handingBack.set(holder, next);
    return next;
  }

  /**
   * A slice was refused: the holder is near a limit. Every process (this one at once, the
   * others over the bus) stops taking from its slices of the account and hands their unused
   * room back, so the exact path that decides from here sees all that is left but what
   * running requests hold; for a while the account's holders are admitted on the exact path.
   */
  private async nearLimit(holder: string, key: KeyDoc): Promise<void> {
    this.book.goExact(holder, this.now(), EXACT_AFTER_REFUSAL_MS);
    await this.handBack(key.account_id);
    if (this.deps.bus === undefined) return;
    await this.deps.bus.publish({ type: 'slices', accountId: key.account_id }).catch(() => undefined);
    await sleep(HAND_BACK_PAUSE_MS);
  }

  /** Retires this process's slices of an account and shrinks each to what its running requests hold. */
  private async handBack(accountId: string): Promise<void> {
    const { ticketContext, epoch } = this.exact.parts;
    const now = this.now();
    const slices = this.book.named(accountPrefix(accountId)).flatMap((name) => {
      this.book.goExact(name, now, EXACT_AFTER_REFUSAL_MS);
      return this.book.of(name).filter((slice) => !slice.retired || slice.room > 0n);
    });
    if (slices.length === 0) return;
    await epoch.ready(accountId);
    await Promise.all(
      slices.map(async (slice) => {
        slice.retired = true;
        const room = slice.room;
        if (room <= 0n) return;
        slice.size -= room;
        const scope = { accountId, keyId: slice.owner.keyId, requestId: slice.id, at: new Date(now) };
        await runScript(ticketContext.redis, 'shrink', SCRIPT_KEYS.shrink(ticketContext.keys, scope), [slice.id, room.toString()]);
      }),
    );
  }

  /**
   * A request admitted from `slice` ended: a retired slice with nothing left running goes back
   * now (near a limit the exact path must see that room at once); any other is kept (its
   * lease renews it at whatever size it has, see follow).
   */
  private ended(slice: Slice): Promise<void> | undefined {
    return slice.retired && slice.running === 0 && this.book.remove(slice) ? this.handBackEnded(slice) : undefined;
  }

  /** Hands back a retired slice whose last request ended; bounded: with Redis away the release waits for it, the request does not. */
  private async handBackEnded(slice: Slice): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.flusher.release(slice), new Promise((resolve) => (timer = setTimeout(resolve, HAND_BACK_WAIT_MS)))]);
    clearTimeout(timer);
  }

  /**
   * Renews the slice's hold with its own TTL for as long as it is held, at the size it has when
   * renewed or placed again: the lease reads it, so a charge or a hand-back that changes it
   * needs no new lease.
   */
  private follow(slice: Slice): void {
    const { accountId, keyId, endUser } = slice.owner;
    this.exact.parts.refresher.track({
      requestId: slice.id,
      accountId,
      keyId,
      endUser: endUser || undefined,
      get held() {
        return slice.size;
      },
      stream: false,
      deadline: Number.MAX_SAFE_INTEGER,
      ttlMs: this.deps.slices.ttlMs,
    });
  }

  /** Hands back idle and expired slices nothing runs on, and logs a change of mode. */
  private sweep(): void {
    const now = this.now();
    for (const slice of this.book.sweep(this.renewedAt, now, this.exact.parts.maxLeaseMs)) void this.flusher.release(slice);
    for (const holder of this.handingBack.keys()) if (!this.book.exact(holder, now)) this.handingBack.delete(holder);
    const mode = this.mode();
    if (mode === this.lastMode) return;
    this.lastMode = mode;
    this.deps.log.warn({ mode, slices: this.book.all().length, pending_charges: this.flusher.pending }, mode === 'degraded' ? 'Redis unreachable: admitting on held slices only' : 'Redis reachable again: slices granted as usual');
  }
}
