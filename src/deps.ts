import type { Logger } from 'pino';
import { AccountService } from './accounts/account-service.js';
import { systemClock, type Clock } from './billing/periods.js';
import { CatalogCache } from './catalog/catalog-cache.js';
import { CatalogRepository } from './catalog/catalog-repository.js';
import type { Config } from './config/config.js';
import { collections, type Collections } from './db/collections.js';
import type { Mongo } from './db/mongo.js';
import { connectWritable } from './db/writable-primary.js';
import { KeyAuthenticator } from './keys/key-auth.js';
import { KeyService } from './keys/key-service.js';
import { join } from 'node:path';
import { MongoHealth } from './db/mongo-health.js';
import { ChargeSpool } from './ledger/charge-spool.js';
import { LedgerWriter } from './ledger/ledger-writer.js';
import { SpoolBeacon } from './ledger/spool-beacon.js';
import { SpoolingLedger } from './ledger/spooling-ledger.js';
import { createAdmission, type RedisAdmission } from './limits/redis-admission.js';
import { Metrics } from './metrics/metrics.js';
import { buildProviderRegistry } from './providers/provider-factories.js';
import type { ProviderRegistry } from './providers/registry.js';
import { createInvalidationBus, type InvalidationBus } from './redis/invalidation-bus.js';
import { createRedis, waitReady, type Redis } from './redis/redis.js';
import { RecordWriter } from './requests/record-writer.js';
import { RequestRecorder } from './requests/request-recorder.js';
import { ShutdownReport } from './runtime/shutdown-report.js';
import { runSteps } from './runtime/shutdown.js';
import { storeShutdownSteps } from './runtime/store-steps.js';

/** Everything a process needs, built once at boot (the composition root). */
export interface Deps {
  readonly config: Config;
  readonly log: Logger;
  readonly clock: Clock;
  readonly mongo: Mongo;
  readonly c: Collections;
  readonly redis: Redis;
  readonly bus: InvalidationBus;
  readonly catalogRepository: CatalogRepository;
  readonly catalog: CatalogCache;
  readonly accounts: AccountService;
  readonly keys: KeyService;
  readonly keyAuth: KeyAuthenticator;
  /** Charges: MongoDB through the group-commit writer, or the durable spool while it is down. */
  readonly ledger: SpoolingLedger;
  /** Admission control (limits, holds, stream slots) in Redis, shared across processes. */
  readonly admission: RedisAdmission;
  /** Provider adapters by provider id, from the providers file and the configured secrets. */
  readonly providers: ProviderRegistry;
  /** Prometheus metrics of this process. */
  readonly metrics: Metrics;
  /** Records of inference requests (lookup by request id), written in batches. */
  readonly requests: RequestRecorder;
  /** Stops background work and closes connections, in dependency order. */
  close(): Promise<void>;
}

/** Options for tests: an injected clock. */
export interface DepsOptions {
  clock?: Clock;
}

/** Connects to the stores and wires the services. */
export async function createDeps(config: Config, log: Logger, options: DepsOptions = {}): Promise<Deps> {
  const clock = options.clock ?? systemClock;
  // Built first: a broken providers file fails the boot before any store is touched.
  const providers = await buildProviderRegistry(config);
  const metrics = new Metrics({ defaultMetrics: config.env !== 'test' });
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
  const announceKey = async (key: { _id: string; hash: string }) => {
    keyAuth.forget(key.hash);
    await bus.publish({ type: 'key', keyId: key._id, hash: key.hash });
  };
  const accounts = new AccountService(mongo.client, c, async (accountId) => bus.publish({ type: 'account', accountId }));
  const keys = new KeyService(c, announceKey);
  const spool = new ChargeSpool(join(config.chargeSpoolDir, config.mongoDb), log);
  await spool.start();
  const beacon = new SpoolBeacon(redis, `${config.redisPrefix}:spool:pending`, log);
  const writer = new LedgerWriter(mongo.client, c, log, { maxConcurrent: config.ledgerMaxConcurrentCommits, observer: metrics.ledger });
  metrics.ledger.watchSpool(() => spool.size());
  const ledger = new SpoolingLedger(writer, spool, health, beacon, log);

  bus.subscribe((event) => {
    if (event.type === 'key') keyAuth.forget(event.hash);
    if (event.type === 'catalog') void catalog.reloadQuietly();
  });
  await catalog.start();
  const requests = new RequestRecorder(new RecordWriter(c.requestRecords, log, (n) => metrics.outcomes.droppedRecords(n)), metrics.outcomes, catalog, clock);
  const admission = createAdmission({ redis, mongo, c, ledger, config, clock, log, bus, catalog });

  return {
    config, log, clock, mongo, c, redis, bus, catalogRepository, catalog, accounts, keys, keyAuth, ledger, admission, providers, metrics, requests,
    async close() {
      // Bounded per step: a store that is gone or half-open must not hold a process open.
      await runSteps(storeShutdownSteps({ catalog, admission, ledger, requests, bus, redis, mongo }), 10_000, new ShutdownReport());
    },
  };
}
