import { hostname } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { z } from 'zod';
import { packageRoot } from './package-root.js';

const int = (fallback: number, min = 0) => z.coerce.number().int().min(min).default(fallback);
const flag = z.enum(['true', 'false', '1', '0']).default('false').transform((v) => v === 'true' || v === '1');

/** A cluster seed as a URL: `host:port` becomes `redis://host:port`; URLs stay as they are. */
function clusterNodeUrl(entry: string): string {
  return /^[a-z]+:\/\//i.test(entry) ? entry : `redis://${entry}`;
}

const schema = z
  .object({
    NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
    PORT: int(8080, 0).pipe(z.number().max(65535)),
    LISTEN_BACKLOG: int(4_096, 1),
    REDIS_URL: z.url({ protocol: /^rediss?$/ }).optional(),
    // Seeds of a Redis Cluster: `host:port` or `redis://` / `rediss://` (TLS) URLs, comma-separated.
    REDIS_CLUSTER_NODES: z
      .string()
      .transform((v) => v.split(',').map((s) => s.trim()).filter((s) => s !== ''))
      .pipe(z.array(z.string().transform(clusterNodeUrl).pipe(z.url({ protocol: /^rediss?$/ }))).min(1))
      .optional(),
    REDIS_TLS_REJECT_UNAUTHORIZED: z.enum(['true', 'false', '1', '0']).default('true').transform((v) => v === 'true' || v === '1'),
    // Not z.url(): a replica-set seed list (`mongodb://a:27017,b:27017/?replicaSet=…`) is no WHATWG
    // URL. The driver parses the rest, including `mongodb+srv://` and `tls=true` options.
    MONGODB_URI: z.string().regex(/^mongodb(\+srv)?:\/\/[^\s/?]+(\/[^\s]*)?$/, 'must be a mongodb:// or mongodb+srv:// URI'),
    MONGODB_DB: z.string().regex(/^[A-Za-z0-9_-]{1,60}$/).default('farebox'),
    REDIS_PREFIX: z.string().regex(/^[A-Za-z0-9_:-]{1,60}$/).default('fbx'),
    ADMIN_TOKEN: z.string().min(16).optional(),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    WORKER_CONCURRENCY: int(4, 1),
    PROVIDERS_FILE: z.string().default('src/providers/providers.json'),
    CATALOG_FILE: z.string().default('src/catalog/seed-models.json'),
    FREE_TIER_RPM: int(20, 1),
    FREE_TIER_RPD: int(50, 1),
    JSON_BODY_LIMIT_BYTES: int(20 * 1024 * 1024, 1024),
    UPLOAD_FILE_LIMIT_BYTES: int(8 * 1024 * 1024, 1024),
    UPSTREAM_CONNECT_TIMEOUT_MS: int(10_000, 1),
    UPSTREAM_FIRST_BYTE_TIMEOUT_MS: int(120_000, 1),
    // Five minutes: a reasoning model may think for minutes without a token, and the client's
    // connection is kept alive by heartbeats meanwhile (STREAM_HEARTBEAT_MS).
    UPSTREAM_IDLE_TIMEOUT_MS: int(300_000, 1),
    // A stream with a route left to move on to: no first token within 10 s hands it to that
    // route (a silent or slow provider), well inside failoverbench's S06 and S07 budgets. Not
    // for models marked REASONING, which may think in silence for minutes.
    UPSTREAM_FIRST_TOKEN_TIMEOUT_MS: int(10_000, 1),
    // Once answer tokens flow, a silence this long is a stalled stream (continued on the next
    // route, or ended): inside S09's 45 s, and failoverbench's own 30 s stream-idle baseline.
    UPSTREAM_STALL_TIMEOUT_MS: int(30_000, 1),
    JOB_TIMEOUT_MS: int(180_000, 1),
    JOB_RESULT_TTL_MS: int(3_600_000, 1_000),
    EARLY_COMMIT_MS: int(20_000, 0),
    STREAM_HEARTBEAT_MS: int(15_000, 10),
    SHED_EVENT_LOOP_DELAY_MS: int(25, 0),
    // Above the 5,000 open streams a web is built to hold: an idle loop waiting on slow upstreams
    // is bounded by this alone, and every open stream counts.
    SHED_MAX_IN_FLIGHT: int(8_192, 0),
    SHED_EVENT_LOOP_BUSY_PERCENT: int(95, 0).pipe(z.number().max(100)),
    HOLD_TTL_SECONDS: int(600, 1),
    MAX_REQUEST_SECONDS: int(3600, 1),
    USAGE_GRACE_MS: int(5_000, 0),
    COUNT_TOKENS_RPM: int(600, 1),
    USAGE_GRACE_MAX_STREAMS: int(256, 0),
    LOG_BUFFER_CHARS: int(4 * 1024 * 1024, 1024),
    SHUTDOWN_GRACE_MS: int(25_000, 0),
    DOCUMENT_FETCH_ALLOW_LOOPBACK: flag,
    CHARGE_SPOOL_DIR: z.string().default('.farebox/spool'),
    REQUEST_RECORD_RETENTION_DAYS: int(30, 1),
    CACHE_MAX_BYTES: int(64 * 1024 * 1024, 0),
    CACHE_MAX_ENTRY_BYTES: int(1024 * 1024, 0),
    LEDGER_MAX_CONCURRENT_COMMITS: int(4, 1),
    LEDGER_ACK: z.enum(['commit', 'local']).default('commit'),
    ADMISSION: z.enum(['exact', 'leased']).default('leased'),
    SLICE_TTL_MS: int(30_000, 6_000),
    SLICE_MAX_USD: z.coerce.number().positive().max(1_000_000).default(1),
    SLICE_IDLE_MS: int(500, 50),
    RECEIPT_SIGNING_KEY: z.string().min(40).optional(),
    RECEIPT_KEY_ID: z.string().regex(/^[A-Za-z0-9._-]{1,64}$/).optional(),
    RECEIPT_RETIRED_KEYS: z
      .string()
      .default('[]')
      .transform((text, ctx) => {
        try {
          return JSON.parse(text) as unknown;
        } catch {
          ctx.addIssue({ code: 'custom', message: 'must be a JSON array' });
          return z.NEVER;
        }
      })
      .pipe(z.array(z.object({ kid: z.string().min(1), x: z.string().regex(/^[A-Za-z0-9_-]{43}$/) }))),
    ROUTE_RETRY_BUDGET_MS: int(10_000, 0),
    // Well above how long a vendor's quick 5xx takes to reach a loaded gateway's route walk (see
    // routing's QUICK_FAILURE_MS), well below a slow generation that fails.
    ROUTE_QUICK_FAILURE_MS: int(5_000, 0),
    ROUTE_BREAKER_FAILURES: int(5, 1),
    // Short enough that a route back from an outage is tried again within seconds (a failed
    // trial only opens it for another cool-down), long enough to spare a route that is down.
    ROUTE_BREAKER_COOLDOWN_MS: int(10_000, 1),
    OTEL_EXPORTER_OTLP_ENDPOINT: z.url({ protocol: /^https?$/ }).optional(),
    OTEL_SERVICE_NAME: z.string().min(1).max(100).default('farebox'),
    OTEL_BSP_SCHEDULE_DELAY: int(5_000, 1),
    OTEL_CAPTURE_CONTENT: flag,
    WEBHOOK_ALLOW_LOOPBACK: flag,
    WEBHOOK_MAX_ATTEMPTS: int(14, 1),
    WEBHOOK_RETRY_BASE_MS: int(10_000, 1),
    WEBHOOK_TIMEOUT_MS: int(10_000, 1),
    WEBHOOK_SWEEP_MS: int(60_000, 100),
    WEBHOOK_CONCURRENCY: int(8, 1),
    JUDOSCALE_URL: z.url({ protocol: /^https?$/ }).optional(),
    // Heroku names each dyno (`worker.1`); elsewhere the host name stands in.
    DYNO: z.string().min(1).max(100).optional(),
  })
  .superRefine((env, ctx) => {
    if (!env.REDIS_URL && !env.REDIS_CLUSTER_NODES) {
      ctx.addIssue({ code: 'custom', path: ['REDIS_URL'], message: 'required unless REDIS_CLUSTER_NODES is set' });
    }
    if (env.NODE_ENV !== 'development' && !env.ADMIN_TOKEN) {
      ctx.addIssue({ code: 'custom', path: ['ADMIN_TOKEN'], message: 'required outside development' });
    }
  });

/** The validated, typed configuration; the only view of the environment the code gets. */
export interface Config {
  readonly env: 'development' | 'test' | 'production';
  readonly port: number;
  /**
   * Connections the kernel may queue for the web before it accepts them. Node's default (511) is
   * overrun by a client pool opening its connections while the web is busy; a connection dropped
   * there waits out TCP's SYN retry (1 s, then 3 s) before the web even sees it, and sheds too late.
   */
  readonly listenBacklog: number;
  /** `REDIS_URL`, or the first cluster seed when only `REDIS_CLUSTER_NODES` is set. */
  readonly redisUrl: string;
  /**
   * Where Redis connections go: the URL and whether a `rediss://` server's certificate must be
   * trusted (`REDIS_TLS_REJECT_UNAUTHORIZED`, on unless set to false for self-signed managed Redis).
   * With `clusterNodes` (`REDIS_CLUSTER_NODES`, which wins over `REDIS_URL`) every connection is a
   * Redis Cluster client seeded from those URLs.
   */
  readonly redis: { readonly url: string; readonly tlsRejectUnauthorized: boolean; readonly clusterNodes?: readonly string[] };
  readonly redisPrefix: string;
  readonly mongoUri: string;
  readonly mongoDb: string;
  readonly adminToken: string | undefined;
  readonly logLevel: string;
  /** Most log output (characters) queued while stdout's reader is slow; beyond it lines are dropped. */
  readonly logBufferChars: number;
  readonly workerConcurrency: number;
  readonly providersFile: string;
  readonly catalogFile: string;
  readonly freeTier: { readonly rpm: number; readonly perDay: number };
  readonly limits: { readonly jsonBodyBytes: number; readonly uploadFileBytes: number };
  readonly upstream: { readonly connectMs: number; readonly firstByteMs: number; readonly idleMs: number };
  readonly jobTimeoutMs: number;
  /** How long an async job's answer (`Prefer: respond-async`) stays readable at `/v1/jobs/{id}`. */
  readonly jobResultTtlMs: number;
  /** Keeping slow answers alive behind proxies with first-byte and idle limits (see KeepAliveSettings). */
  readonly keepAlive: KeepAliveSettings;
  /** When the web sheds new work (see OverloadSettings). */
  readonly overload: OverloadSettings;
  readonly holdTtlSeconds: number;
  /** Token counts (`count_tokens`, `input_tokens`) one key may ask for per minute: never charged, so limited on their own. */
  readonly countTokensRpm: number;
  /**
   * How long one chat request may run (`maxRequestMs`: its upstream call is then ended with
   * the usage produced, so no hold is held forever), how long a stream whose client left
   * keeps reading the upstream for its usage report (`usageGraceMs`), and the silences that
   * end a stream's upstream call: before its first token when another route could answer
   * (`firstTokenMs`), and once its answer flows (`stallMs`).
   */
  readonly requestTiming: RequestTiming;
  /** Failover across a model's routes (retry budget, circuit breaker). */
  readonly routes: RoutePolicy;
  readonly shutdownGraceMs: number;
  readonly documentFetchAllowLoopback: boolean;
  /** Folder of the local charge spool (charges waiting for MongoDB), one subfolder per database. */
  readonly chargeSpoolDir: string;
  /** Days request records are kept before MongoDB's TTL index removes them. */
  readonly requestRecordRetentionDays: number;
  /**
   * The exact response cache in Redis: most bytes of all entries together (`CACHE_MAX_BYTES`,
   * oldest evicted first; 0 turns the cache off) and of one entry (`CACHE_MAX_ENTRY_BYTES`).
   */
  readonly cache: { readonly maxBytes: number; readonly maxEntryBytes: number };
  /**
   * When a charge counts as recorded, so its cost may be reported: `commit` once MongoDB
   * committed it; `local` once it is fsync'd to this machine's charge spool, which drains to
   * MongoDB continuously (see docs/money-and-holds.md).
   */
  readonly ledgerAck: LedgerAck;
  /** How requests are admitted (see AdmissionSettings). */
  readonly admission: AdmissionSettings;
  /** Ledger batch transactions in flight at once (never two on the same account). */
  readonly ledgerMaxConcurrentCommits: number;
  /**
   * Receipt signing: the Ed25519 private key (PKCS8, PEM or base64 DER; absent: a key made at
   * boot, fine only for one process in development and tests), its key id, and the public
   * keys of earlier signing keys, still served so old receipts keep verifying.
   */
  readonly receipts: {
    readonly signingKey: string | undefined;
    readonly keyId: string | undefined;
    readonly retiredKeys: ReadonlyArray<{ readonly kid: string; readonly x: string }>;
  };
  /** OpenTelemetry trace export (see TracingSettings). */
  readonly tracing: TracingSettings;
  /** Webhook delivery (see WebhookSettings). */
  readonly webhooks: WebhookSettings;
  /** Queue metrics for Judoscale's autoscaler, reported by workers when `url` (`JUDOSCALE_URL`) is set. */
  readonly judoscale: { readonly url: string | undefined; readonly container: string };
  /** Provider secrets by variable name, as named by the providers file. */
  readonly secrets: Readonly<Record<string, string | undefined>>;
}

/**
 * Failover across routes: the most time one request may spend waiting out `Retry-After`
 * (`retryBudgetMs`), the slowest 5xx still tried once more on its route (`quickFailureMs`),
 * and the circuit breaker (a route failing `breakerFailures` times in a row is skipped for
 * `breakerCooldownMs`, then tried again with one request).
 */
export interface RoutePolicy {
  readonly retryBudgetMs: number;
  readonly quickFailureMs: number;
  readonly breakerFailures: number;
  readonly breakerCooldownMs: number;
}

/**
 * Trace export over OTLP/HTTP: to `endpoint` (`OTEL_EXPORTER_OTLP_ENDPOINT`, the base URL;
 * absent: no tracing at all), as `serviceName`, in batches every `scheduleDelayMs`. Prompt and
 * completion content go into spans only with `captureContent` (`OTEL_CAPTURE_CONTENT`, off by
 * default): traces often land where the data's owners never agreed to send it.
 */
export interface TracingSettings {
  readonly endpoint: string | undefined;
  readonly serviceName: string;
  readonly scheduleDelayMs: number;
  readonly captureContent: boolean;
}

/**
 * Webhook delivery: endpoints on loopback addresses only when `allowLoopback` (tests against
 * local receivers; never in production), `maxAttempts` tries `retryBaseMs`·2ⁿ apart (the
 * defaults, 14 tries from 10 s, span about 23 hours), each bounded by `timeoutMs`; expired keys
 * are looked for every `sweepMs`; `concurrency` deliveries run at once per worker process.
 */
export interface WebhookSettings {
  readonly allowLoopback: boolean;
  readonly maxAttempts: number;
  readonly retryBaseMs: number;
  readonly timeoutMs: number;
  readonly sweepMs: number;
  readonly concurrency: number;
}

/**
 * Slow answers behind a proxy (Heroku's router: a first byte within 30 s, then one every 55 s):
 * a request still waiting after `earlyCommitMs` is committed as 200 (0: never), and a committed
 * answer that has sent nothing for `heartbeatMs` gets a heartbeat in its own form (an SSE
 * comment or ping for streams, whitespace before a JSON body).
 */
/** When a web process counts as overloaded and sheds new work; 0 turns a signal off. */
export interface OverloadSettings {
  /** Event-loop delay, ms, past which new work is shed. */
  readonly maxEventLoopDelayMs: number;
  /** Requests of new work in progress past which more is shed. */
  readonly maxInFlight: number;
  /** Share of the time (0–1) the event loop was busy, past which new work is shed. */
  readonly maxEventLoopBusy: number;
}

export interface KeepAliveSettings {
  readonly earlyCommitMs: number;
  readonly heartbeatMs: number;
}

/**
 * `exact`: every request runs admission's script in Redis (one round trip to admit, one to
 * settle). `leased`: each process holds slices of its holders' money budgets, granted by
 * Redis out of what is unreserved, and admits against them in-process; a slice lives `ttlMs`
 * without renewal, is at most `maxNano`, and is handed back after `idleMs` unused.
 */
export interface AdmissionSettings {
  readonly mode: 'exact' | 'leased';
  readonly slices: { readonly ttlMs: number; readonly maxNano: bigint; readonly idleMs: number };
}

/** When a charge is acknowledged: committed in MongoDB, or fsync'd to the local spool. */
export type LedgerAck = 'commit' | 'local';

/** Time bounds of one chat request (see Config.requestTiming). */
export interface RequestTiming {
  readonly maxRequestMs: number;
  readonly usageGraceMs: number;
  /** A stream's longest wait for its first token when another route could answer instead (not for reasoning models). */
  readonly firstTokenMs: number;
  /** A stream's longest silence once its answer's tokens flow. */
  readonly stallMs: number;
  /** Most streams one process reads on for usage after their clients left (then they stop at once). */
  readonly usageGraceMaxStreams: number;
}

/** Thrown when the environment is invalid; lists every problem at once. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

function resolvePath(path: string): string {
  return isAbsolute(path) ? path : join(packageRoot(), path);
}

/**
 * Validates the environment once at boot. Empty strings count as unset so that
 * `FOO=` in an env file does not override a default.
 */
export function loadConfig(env: Readonly<Record<string, string | undefined>>): Config {
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = schema.safeParse(present);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`));
  }
  const e = parsed.data;
  const clusterNodes = e.REDIS_CLUSTER_NODES;
  // One of the two is set (checked above); the cluster seeds win when both are.
  const redisUrl = (clusterNodes?.[0] ?? e.REDIS_URL) as string;
  return {
    env: e.NODE_ENV,
    port: e.PORT,
    listenBacklog: e.LISTEN_BACKLOG,
    redisUrl,
    redis: { url: redisUrl, tlsRejectUnauthorized: e.REDIS_TLS_REJECT_UNAUTHORIZED, ...(clusterNodes ? { clusterNodes } : {}) },
    redisPrefix: e.REDIS_PREFIX,
    mongoUri: e.MONGODB_URI,
    mongoDb: e.MONGODB_DB,
    adminToken: e.ADMIN_TOKEN,
    logLevel: e.LOG_LEVEL,
    logBufferChars: e.LOG_BUFFER_CHARS,
    workerConcurrency: e.WORKER_CONCURRENCY,
    providersFile: resolvePath(e.PROVIDERS_FILE),
    catalogFile: resolvePath(e.CATALOG_FILE),
    freeTier: { rpm: e.FREE_TIER_RPM, perDay: e.FREE_TIER_RPD },
    limits: { jsonBodyBytes: e.JSON_BODY_LIMIT_BYTES, uploadFileBytes: e.UPLOAD_FILE_LIMIT_BYTES },
    upstream: {
      connectMs: e.UPSTREAM_CONNECT_TIMEOUT_MS,
      firstByteMs: e.UPSTREAM_FIRST_BYTE_TIMEOUT_MS,
      idleMs: e.UPSTREAM_IDLE_TIMEOUT_MS,
    },
    jobTimeoutMs: e.JOB_TIMEOUT_MS,
    jobResultTtlMs: e.JOB_RESULT_TTL_MS,
    keepAlive: { earlyCommitMs: e.EARLY_COMMIT_MS, heartbeatMs: e.STREAM_HEARTBEAT_MS },
    overload: { maxEventLoopDelayMs: e.SHED_EVENT_LOOP_DELAY_MS, maxInFlight: e.SHED_MAX_IN_FLIGHT, maxEventLoopBusy: e.SHED_EVENT_LOOP_BUSY_PERCENT / 100 },
    holdTtlSeconds: e.HOLD_TTL_SECONDS,
    countTokensRpm: e.COUNT_TOKENS_RPM,
    requestTiming: {
      maxRequestMs: e.MAX_REQUEST_SECONDS * 1000,
      usageGraceMs: e.USAGE_GRACE_MS,
      usageGraceMaxStreams: e.USAGE_GRACE_MAX_STREAMS,
      firstTokenMs: e.UPSTREAM_FIRST_TOKEN_TIMEOUT_MS,
      stallMs: e.UPSTREAM_STALL_TIMEOUT_MS,
    },
    routes: { retryBudgetMs: e.ROUTE_RETRY_BUDGET_MS, quickFailureMs: e.ROUTE_QUICK_FAILURE_MS, breakerFailures: e.ROUTE_BREAKER_FAILURES, breakerCooldownMs: e.ROUTE_BREAKER_COOLDOWN_MS },
    shutdownGraceMs: e.SHUTDOWN_GRACE_MS,
    documentFetchAllowLoopback: e.DOCUMENT_FETCH_ALLOW_LOOPBACK,
    chargeSpoolDir: resolvePath(e.CHARGE_SPOOL_DIR),
    requestRecordRetentionDays: e.REQUEST_RECORD_RETENTION_DAYS,
    cache: { maxBytes: e.CACHE_MAX_BYTES, maxEntryBytes: e.CACHE_MAX_ENTRY_BYTES },
    ledgerMaxConcurrentCommits: e.LEDGER_MAX_CONCURRENT_COMMITS,
    ledgerAck: e.LEDGER_ACK,
    admission: { mode: e.ADMISSION, slices: { ttlMs: e.SLICE_TTL_MS, maxNano: BigInt(Math.round(e.SLICE_MAX_USD * 1e9)), idleMs: e.SLICE_IDLE_MS } },
    receipts: { signingKey: e.RECEIPT_SIGNING_KEY, keyId: e.RECEIPT_KEY_ID, retiredKeys: e.RECEIPT_RETIRED_KEYS },
    tracing: { endpoint: e.OTEL_EXPORTER_OTLP_ENDPOINT, serviceName: e.OTEL_SERVICE_NAME, scheduleDelayMs: e.OTEL_BSP_SCHEDULE_DELAY, captureContent: e.OTEL_CAPTURE_CONTENT },
    webhooks: {
      allowLoopback: e.WEBHOOK_ALLOW_LOOPBACK,
      maxAttempts: e.WEBHOOK_MAX_ATTEMPTS,
      retryBaseMs: e.WEBHOOK_RETRY_BASE_MS,
      timeoutMs: e.WEBHOOK_TIMEOUT_MS,
      sweepMs: e.WEBHOOK_SWEEP_MS,
      concurrency: e.WEBHOOK_CONCURRENCY,
    },
    judoscale: { url: e.JUDOSCALE_URL, container: e.DYNO ?? hostname() },
    secrets: Object.freeze({ ...present }),
  };
}
