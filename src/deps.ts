import type { Logger } from 'pino';
import { AccountService, KeyAuthenticator, KeyReads, KeyService } from './accounts/index.js';
import { type Clock, systemClock } from './billing/index.js';
import { CatalogCache, CatalogRepository } from './catalog/index.js';
import type { Config, RequestTiming } from './platform/config/index.js';
import { collections, type Collections } from './store/index.js';
import { connectWritable, type Mongo, MongoHealth } from './platform/db/index.js';
import { join } from 'node:path';
import {
  ChargeSpool,
  createReceiptSigner,
  LedgerCredits,
  LedgerReads,
  LedgerWriter,
  observeAll,
  type ReceiptSigner,
  RecordReads,
  RecordWriter,
  RequestRecorder,
  SpoolBeacon,
  SpoolingLedger,
} from './ledger/index.js';
import { createAdmission, type ProcessAdmission } from './admission/index.js';
import { Metrics } from './metrics/index.js';
import { RouteHealth } from './routing/index.js';
import { GraceReads } from './chat/index.js';
import { buildProviderRegistry, type ProviderRegistry } from './providers/index.js';
import { JobQueue, type JobQueueOptions, settleWithin } from './queue/index.js';
import { createInvalidationBus, createRedis, type InvalidationBus, type Redis, waitReady } from './platform/redis/index.js';
import { CeilingRegistry } from './quote/index.js';
import { IdempotencyStore, ResponseBlobs } from './platform/idempotency/index.js';
import { OverloadGauge, runSteps, ShutdownReport, storeShutdownSteps } from './platform/runtime/index.js';
import type { HostResolver } from './platform/security/index.js';
import { Webhooks } from './webhooks/index.js';
import { CacheMetrics, ResponseCache } from './cache/index.js';

/** Everything a process needs, built once at boot (the composition root). */
export interface Deps {
  readonly config: Config;
  readonly log: Logger;
  readonly clock: Clock;
  readonly mongo: Mongo;
  readonly redis: Redis;
  readonly bus: InvalidationBus;
  readonly catalogRepository: CatalogRepository;
  readonly catalog: CatalogCache;
  readonly accounts: AccountService;
  /** Top-ups and grants: a ledger entry and the balance change, together. */
  readonly credits: LedgerCredits;
  readonly keys: KeyService;
  readonly keyAuth: KeyAuthenticator;
  /** Charges: MongoDB through the group-commit writer, or the durable spool while it is down. */
  readonly ledger: SpoolingLedger;
  /** Admission control (limits, holds, stream slots) in Redis, shared across processes. */
  readonly admission: ProcessAdmission;
  /** Provider adapters by provider id, from the providers file and the configured secrets. */
  readonly providers: ProviderRegistry;
  /** Prometheus metrics of this process. */
  readonly metrics: Metrics;
  /** Records of inference requests (lookup by request id), written in batches. */
  readonly requests: RequestRecorder;
  /** Reads of request records, usage, receipts and their exports (routes never see collections). */
  readonly records: RecordReads;
  /** Reads of the ledger: pages, chain checks and the export. */
  readonly ledgerReads: LedgerReads;
  /** What `GET /v1/key` and the quote read about a key: spend and each limit's figures. */
  readonly keyReads: KeyReads;
  /** Signs receipts of charged requests and serves the keys that verify them. */
  readonly receipts: ReceiptSigner;
  /** Idempotency keys of inference requests and the responses kept for replays. */
  readonly idempotency: IdempotencyStore;
  /** Each request's own `max_cost` while it runs, for admission's ceiling check. */
  readonly ceilings: CeilingRegistry;
  /** How long one chat request may run, and wait for its usage after the client left. */
  readonly requestTiming: RequestTiming;
  /** This process's bound on streams read for usage after their client left. */
  readonly graceReads: GraceReads;
  /** The image and OCR job queue; absent when left out (then those routes are not mounted). */
  readonly jobs?: JobQueue;
  /** Health of every route in this process: circuit breakers, Retry-After, latency. */
  readonly routeHealth: RouteHealth;
  /** Most time one request may wait out upstream `Retry-After`s, ms. */
  readonly routeRetryBudgetMs: number;
  /** Slowest 5xx still tried again on its route, ms. */
  readonly routeQuickFailureMs: number;
  /** Webhook endpoints, the events the ledger, keys and credits emit, and the delivery log. */
  readonly webhooks: Webhooks;
  /** The exact response cache (opt-in per request or key) in Redis. */
  readonly cache: ResponseCache;
  /** This process's overload signals: what the web sheds new work on. */
  readonly overload: OverloadGauge;
  /** Stops background work and closes connections, in dependency order. */
  close(): Promise<void>;
}

/**
 * Deps as the composition root built them, with the collections beside: for the code that
 * prepares a database and for tests that look at what was stored. Routes get `Deps`.
 */
export interface BuiltDeps extends Deps {
  readonly c: Collections;
}

/** Options for tests: an injected clock, and the job queue's settings or none at all. */
export interface DepsOptions {
  clock?: Clock;
  /** `false` leaves the job queue out (a gateway without images and OCR). */
  jobs?: JobQueueOptions | false;
  /** Host resolver of the webhook URL rules (tests name fake public hosts). */
  resolver?: HostResolver;
}

/** Connects to the stores and wires the services. */
export async function createDeps(config: Config, log: Logger, options: DepsOptions = {}): Promise<BuiltDeps> {
  const clock = options.clock ?? systemClock;
  // Built first: a broken providers file fails the boot before any store is touched.
  const metrics = new Metrics({ defaultMetrics: config.env !== 'test' });
  const providers = await buildProviderRegistry(config, undefined, ({ provider, keyEnv, reason }) => {
    metrics.routes.keySetAside(provider, keyEnv, reason);
    log.warn({ provider, key_env: keyEnv, reason }, 'upstream key set aside');
  });
  const mongo = await connectWritable(config.mongoUri, config.mongoDb, { log });
  const c = collections(mongo.db);
  const redis = createRedis(config.redis, 'farebox');
  redis.on('error', (err) => log.debug({ err }, 'redis error'));
  await waitReady(redis);
  const bus = createInvalidationBus(redis, config.redis, config.redisPrefix, log);
  const catalogRepository = new CatalogRepository(c.models);
  const catalog = new CatalogCache(catalogRepository, log);
  const health = new MongoHealth(mongo.client);
  const keyAuth = new KeyAuthenticator(c, clock, undefined, health);
  const announceKey = (key: { _id: string; hash: string }) => bus.publish({ type: 'key', keyId: key._id, hash: key.hash });
  const accounts = new AccountService(c, async (accountId) => bus.publish({ type: 'account', accountId }));
  const webhooks = new Webhooks({ c, redis, redisPrefix: config.redisPrefix, settings: config.webhooks, clock, log, resolver: options.resolver });
  const credits = new LedgerCredits(mongo.client, c, async (accountId, entry) => {
    await bus.publish({ type: 'account', accountId });
    webhooks.credited(entry);
  });
  const keys = new KeyService(c, announceKey, webhooks.keyEvents);
  const spool = new ChargeSpool(join(config.chargeSpoolDir, config.mongoDb), log);
  await spool.start();
  const beacon = new SpoolBeacon(redis, `${config.redisPrefix}:spool:state`, log);
  const writer = new LedgerWriter(mongo.client, c, log, { maxConcurrent: config.ledgerMaxConcurrentCommits, observer: observeAll(metrics.ledger, webhooks.spend) });
  const ledger = new SpoolingLedger(writer, spool, health, beacon, log, { ack: config.ledgerAck });
  metrics.ledger.watch(ledger);

  bus.subscribe((event) => {
    if (event.type === 'key') keyAuth.forget(event.hash);
    if (event.type === 'catalog') return catalog.reloadQuietly();
  });
  await catalog.start();
  const receipts = createReceiptSigner(config, log);
  const ceilings = new CeilingRegistry();
  const idempotency = new IdempotencyStore(redis, config.redisPrefix, new ResponseBlobs(c.idempotentBlobs));
  const requests = new RequestRecorder(new RecordWriter(c.requestRecords, log, (n) => metrics.outcomes.droppedRecords(n)), metrics.outcomes, catalog, clock);
  const admission = createAdmission({ redis, mongo, c, ledger, config, clock, log, bus, catalog });
  metrics.watchAdmission(admission);
  const overload = new OverloadGauge(config.overload);
  metrics.watchOverload(overload);
  const jobs = options.jobs === false ? undefined : await JobQueue.open(config, log, options.jobs);
  jobs?.instrument(metrics.queue);

  return {
    config, log, clock, mongo, c, redis, bus, catalogRepository, catalog, accounts, credits, keys, keyAuth, ledger, admission, providers, metrics, requests, jobs, requestTiming: config.requestTiming, receipts, idempotency, ceilings,
    records: new RecordReads(c), ledgerReads: new LedgerReads(c), keyReads: new KeyReads(c, clock),
    graceReads: new GraceReads(config.requestTiming.usageGraceMaxStreams),
    routeHealth: new RouteHealth(config.routes), routeRetryBudgetMs: config.routes.retryBudgetMs,
    routeQuickFailureMs: config.routes.quickFailureMs, webhooks,
    cache: new ResponseCache(redis, { prefix: config.redisPrefix, ...config.cache }, log, new CacheMetrics(metrics.registry)),
    overload,
    async close() {
      overload.stop();
      // Crossings seen by the last batches still go out before the connections close.
      await settleWithin(webhooks.close(), 2_000);
      // Bounded per step: a store that is gone or half-open must not hold a process open.
      await runSteps(storeShutdownSteps({ jobs, catalog, admission, ledger, requests, bus, redis, mongo }), 10_000, new ShutdownReport());
    },
  };
}
