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
 * own connection and cluster errors, a command left unanswered past `commandTimeout` included.
 */
const REDIS_TRANSIENT =
  /^(MOVED|ASK|CLUSTERDOWN|TRYAGAIN|LOADING|READONLY|MASTERDOWN)\b|enableOfflineQueue|Connection is closed|ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|Stream isn't writeable|Cluster isn't ready|Failed to refresh slots cache|None of startup nodes is available|Too many Cluster redirections|Command timed out/i;

/** Redis's answer to EXEC when a command of the transaction was refused while it was queued. */
const EXEC_ABORTED = /^EXECABORT\b/;

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
  return ['MaxRetriesPerRequestError', 'ClusterAllFailedError'].includes(err.name) || REDIS_TRANSIENT.test(err.message) || isAbortedByFailover(err);
}

/**
 * A MULTI that Redis aborted because its commands met a failover. Redis refuses each queued
 * command (CLUSTERDOWN, MOVED, READONLY) and then answers EXEC with EXECABORT; ioredis rejects
 * with that EXECABORT, the refusals attached as `previousErrors`, also when its cluster client
 * gave up following them. The abort is as transient as every refusal behind it: one that a
 * retry cannot fix (a malformed command) keeps it a fault.
 */
function isAbortedByFailover(err: Error): boolean {
  if (!EXEC_ABORTED.test(err.message)) return false;
  const causes = (err as { previousErrors?: unknown }).previousErrors;
  return Array.isArray(causes) && causes.length > 0 && causes.every((cause) => cause instanceof Error && isRedisTransient(cause));
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
