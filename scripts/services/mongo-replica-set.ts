import { MongoClient, MongoNetworkError, MongoServerError, type Document } from 'mongodb';
import { waitUntil } from './wait-until.js';

/** Name of the single-node replica set every local and container mongod runs. */
export const REPLICA_SET = 'rs0';

/** Consecutive writable-primary answers (200 ms apart) required before the node is used. */
const STABLE_CHECKS = 3;

/** Options for {@link ensureReplicaSetPrimary}. */
export interface EnsurePrimaryOptions {
  /** URI reaching the node directly (`directConnection=true`). */
  readonly uri: string;
  /** Host the node must have in its replica set config, as the node itself resolves it. */
  readonly memberHost: string;
  readonly timeoutMs: number;
  /** Reason to give up early, e.g. the process died. */
  readonly abortReason?: () => string | undefined;
}

/**
 * Makes the node a writable primary of a one-member replica set: initiates it on first start,
 * and force-reconfigures a persisted set whose member host no longer matches (the dev mongod
 * moved to another port because its usual one was taken).
 */
export async function ensureReplicaSetPrimary(options: EnsurePrimaryOptions): Promise<void> {
  const deadline = Date.now() + options.timeoutMs;
  const client = await connectWhenUp(options);
  try {
    const admin = client.db('admin');
    await initiateOrRehost(admin, options.memberHost);
    // A node can report primary for a moment during a (forced) reconfig and then step back to
    // electing; only a primary seen on consecutive checks is handed out.
    let streak = 0;
    await waitUntil(async () => {
      const before = streak;
      streak = 0; // an error below (connection dropped by a state change) also breaks the streak
      if ((await admin.command({ hello: 1 })).isWritablePrimary === true) streak = before + 1;
      return streak >= STABLE_CHECKS;
    }, {
      what: 'mongod to become a writable primary',
      intervalMs: 200,
      timeoutMs: Math.max(1_000, deadline - Date.now()),
      abortReason: options.abortReason,
    });
  } finally {
    await client.close();
  }
}

/** Asks mongod to shut down; the connection dropping is the expected answer. */
export async function requestShutdown(uri: string): Promise<void> {
  const client = new MongoClient(uri, { serverSelectionTimeoutMS: 2_000 });
  try {
    await client.connect();
    await client.db('admin').command({ shutdown: 1, force: true });
  } catch {
    // A closed socket means the shutdown was accepted; anything else is handled by the caller's kill.
  } finally {
    await client.close(true).catch(() => undefined);
  }
}

async function connectWhenUp(options: EnsurePrimaryOptions): Promise<MongoClient> {
  let connected: MongoClient | undefined;
  await waitUntil(
    async () => {
      const client = new MongoClient(options.uri, { serverSelectionTimeoutMS: 1_000, connectTimeoutMS: 1_000 });
      try {
        await client.connect();
        await client.db('admin').command({ ping: 1 });
        connected = client;
        return true;
      } catch (error) {
        await client.close(true).catch(() => undefined);
        throw error;
      }
    },
    { what: 'mongod to accept connections', timeoutMs: options.timeoutMs, intervalMs: 250, abortReason: options.abortReason },
  );
  if (!connected) throw new Error('mongod connection was not kept');
  return connected;
}

async function initiateOrRehost(admin: ReturnType<MongoClient['db']>, memberHost: string): Promise<void> {
  try {
    await admin.command({ replSetInitiate: { _id: REPLICA_SET, members: [{ _id: 0, host: memberHost }] } });
    return;
  } catch (error) {
    if (!(error instanceof MongoServerError && error.codeName === 'AlreadyInitialized')) throw error;
  }
  const { config } = (await admin.command({ replSetGetConfig: 1 })) as { config: Document };
  const members = Array.isArray(config.members) ? (config.members as Document[]) : [];
  if (members.length === 1 && members[0]?.host === memberHost) return;
  const rehosted = { ...config, version: Number(config.version) + 1, members: [{ ...members[0], _id: 0, host: memberHost }] };
  try {
    await admin.command({ replSetReconfig: rehosted, force: true });
  } catch (error) {
    // The node drops its connections when its member state changes; the new config is applied.
    if (!(error instanceof MongoNetworkError)) throw error;
  }
}
