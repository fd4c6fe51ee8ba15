import { MongoError, MongoNetworkError, MongoNotConnectedError, MongoServerSelectionError, MongoTopologyClosedError } from 'mongodb';

/**
 * MongoDB server error codes of a replica set changing primary or shutting down: the write did
 * not happen on a primary that keeps it, and a retry on the next primary is the remedy.
 */
const MONGO_FAILOVER_CODES = new Set([
  6, // HostUnreachable
  7, // HostNotFound
  89, // NetworkTimeout
  91, // ShutdownInProgress
  189, // PrimarySteppedDown
  9001, // SocketException
  10107, // NotWritablePrimary
  11600, // InterruptedAtShutdown
  11602, // InterruptedDueToReplStateChange
  13435, // NotPrimaryNoSecondaryOk
  13436, // NotPrimaryOrSecondary
]);

/** Whether a MongoDB error code means the primary changed or went away under the operation. */
export function isFailoverCode(code: unknown): boolean {
  return typeof code === 'number' && MONGO_FAILOVER_CODES.has(code);
}

/** Labels the driver puts on errors that are safe and expected to succeed when retried. */
const RETRYABLE_LABELS = ['RetryableWriteError', 'TransientTransactionError', 'ResetPool', 'PoolRequestedRetry'];

/**
 * Redis replies and client errors of a node or cluster that is failing over, restarting or
 * unreachable: MOVED/ASK after the driver's redirections ran out, CLUSTERDOWN, TRYAGAIN (slot
 * migrating), LOADING, READONLY/MASTERDOWN (a replica promoted or a master lost), and ioredis's
 * own connection and cluster errors.
 */
const REDIS_TRANSIENT =
  /^(MOVED|ASK|CLUSTERDOWN|TRYAGAIN|LOADING|READONLY|MASTERDOWN)\b|enableOfflineQueue|Connection is closed|ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|Stream isn't writeable|Cluster isn't ready|Failed to refresh slots cache|None of startup nodes is available|Too many Cluster redirections/i;

function isMongoTransient(err: unknown): boolean {
  if (
    err instanceof MongoServerSelectionError ||
    err instanceof MongoNetworkError ||
    err instanceof MongoNotConnectedError ||
    err instanceof MongoTopologyClosedError
  ) {
    return true;
  }
  if (!(err instanceof MongoError)) return false;
  if (isFailoverCode(err.code)) return true;
  return RETRYABLE_LABELS.some((label) => err.hasErrorLabel(label));
}

function isRedisTransient(err: Error): boolean {
  return ['MaxRetriesPerRequestError', 'ClusterAllFailedError'].includes(err.name) || REDIS_TRANSIENT.test(err.message);
}

/**
 * Whether an error means a store is briefly unavailable (down, failing over, electing a
 * primary, moving slots) rather than that the request or the code is wrong: such errors are a
 * 503 with Retry-After, and a charge that met one is spooled instead of lost.
 */
export function isTransientStoreError(err: unknown): boolean {
  if (isMongoTransient(err)) return true;
  if (!(err instanceof Error)) return false;
  if (isRedisTransient(err)) return true;
  // A write concern error carries the failover code in its result, not on the error itself.
  const wce = (err as { writeConcernError?: { code?: unknown } }).writeConcernError;
  return isFailoverCode(wce?.code);
}
