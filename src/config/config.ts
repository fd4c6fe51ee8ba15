import { isAbsolute, join } from 'node:path';
import { z } from 'zod';
import { packageRoot } from './package-root.js';

const int = (fallback: number, min = 0) => z.coerce.number().int().min(min).default(fallback);
const flag = z.enum(['true', 'false', '1', '0']).default('false').transform((v) => v === 'true' || v === '1');

const schema = z
  .object({
    NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
    PORT: int(8080, 0).pipe(z.number().max(65535)),
    REDIS_URL: z.url({ protocol: /^rediss?$/ }),
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
    UPSTREAM_IDLE_TIMEOUT_MS: int(60_000, 1),
    JOB_TIMEOUT_MS: int(180_000, 1),
    HOLD_TTL_SECONDS: int(600, 1),
    SHUTDOWN_GRACE_MS: int(25_000, 0),
    DOCUMENT_FETCH_ALLOW_LOOPBACK: flag,
    CHARGE_SPOOL_DIR: z.string().default('.farebox/spool'),
    REQUEST_RECORD_RETENTION_DAYS: int(30, 1),
    LEDGER_MAX_CONCURRENT_COMMITS: int(4, 1),
  })
  .superRefine((env, ctx) => {
    if (env.NODE_ENV !== 'development' && !env.ADMIN_TOKEN) {
      ctx.addIssue({ code: 'custom', path: ['ADMIN_TOKEN'], message: 'required outside development' });
    }
  });

/** The validated, typed configuration; the only view of the environment the code gets. */
export interface Config {
  readonly env: 'development' | 'test' | 'production';
  readonly port: number;
  readonly redisUrl: string;
  /**
   * Where Redis connections go: the URL and whether a `rediss://` server's certificate must be
   * trusted (`REDIS_TLS_REJECT_UNAUTHORIZED`, on unless set to false for self-signed managed Redis).
   */
  readonly redis: { readonly url: string; readonly tlsRejectUnauthorized: boolean };
  readonly redisPrefix: string;
  readonly mongoUri: string;
  readonly mongoDb: string;
  readonly adminToken: string | undefined;
  readonly logLevel: string;
  readonly workerConcurrency: number;
  readonly providersFile: string;
  readonly catalogFile: string;
  readonly freeTier: { readonly rpm: number; readonly perDay: number };
  readonly limits: { readonly jsonBodyBytes: number; readonly uploadFileBytes: number };
  readonly upstream: { readonly connectMs: number; readonly firstByteMs: number; readonly idleMs: number };
  readonly jobTimeoutMs: number;
  readonly holdTtlSeconds: number;
  readonly shutdownGraceMs: number;
  readonly documentFetchAllowLoopback: boolean;
  /** Folder of the local charge spool (charges waiting for MongoDB), one subfolder per database. */
  readonly chargeSpoolDir: string;
  /** Days request records are kept before MongoDB's TTL index removes them. */
  readonly requestRecordRetentionDays: number;
  /** Ledger batch transactions in flight at once (never two on the same account). */
  readonly ledgerMaxConcurrentCommits: number;
  /** Provider secrets by variable name, as named by the providers file. */
  readonly secrets: Readonly<Record<string, string | undefined>>;
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
  return {
    env: e.NODE_ENV,
    port: e.PORT,
    redisUrl: e.REDIS_URL,
    redis: { url: e.REDIS_URL, tlsRejectUnauthorized: e.REDIS_TLS_REJECT_UNAUTHORIZED },
    redisPrefix: e.REDIS_PREFIX,
    mongoUri: e.MONGODB_URI,
    mongoDb: e.MONGODB_DB,
    adminToken: e.ADMIN_TOKEN,
    logLevel: e.LOG_LEVEL,
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
    holdTtlSeconds: e.HOLD_TTL_SECONDS,
    shutdownGraceMs: e.SHUTDOWN_GRACE_MS,
    documentFetchAllowLoopback: e.DOCUMENT_FETCH_ALLOW_LOOPBACK,
    chargeSpoolDir: resolvePath(e.CHARGE_SPOOL_DIR),
    requestRecordRetentionDays: e.REQUEST_RECORD_RETENTION_DAYS,
    ledgerMaxConcurrentCommits: e.LEDGER_MAX_CONCURRENT_COMMITS,
    secrets: Object.freeze({ ...present }),
  };
}
