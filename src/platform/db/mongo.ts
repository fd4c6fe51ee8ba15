import { MongoClient, type Db } from 'mongodb';

/** An open MongoDB connection and the gateway's database. */
export interface Mongo {
  readonly client: MongoClient;
  readonly db: Db;
  close(): Promise<void>;
}

/**
 * How long a connection may wait for the reply to one command. A primary whose host died or
 * dropped off the network leaves its connections open without an answer (no reset ever
 * comes), and every operation on one would wait forever: a ledger batch, and every charge
 * queued behind its account, with it. Past this the driver closes the connection and the
 * operation fails as a network error, which transactions retry on the next primary.
 */
export const REPLY_TIMEOUT_MS = 10_000;

/** Options of a MongoDB connection. */
export interface MongoOptions {
  /**
   * Longest wait for one reply, ms (default {@link REPLY_TIMEOUT_MS}); 0 waits without limit,
   * for commands that legitimately run long, such as index builds at release.
   */
  readonly replyTimeoutMs?: number;
}

/**
 * Connects to MongoDB. int64 values come back as bigint so money never passes through
 * floating point.
 */
export async function connectMongo(uri: string, dbName: string, options: MongoOptions = {}): Promise<Mongo> {
  const mongo = openMongo(uri, dbName, options);
  await mongo.client.connect();
  return mongo;
}

/**
 * The same client without waiting for a server: it connects on its first operation. For
 * processes whose main work does not need MongoDB (a worker), so its absence cannot stop them.
 */
export function openMongo(uri: string, dbName: string, options: MongoOptions = {}): Mongo {
  const client = new MongoClient(uri, {
    useBigInt64: true,
    // Fail fast while MongoDB is down: callers answer 503 (or spool charges) within about a
    // second instead of stalling; heartbeats notice a lost primary (and its return) quickly.
    serverSelectionTimeoutMS: 1_000,
    connectTimeoutMS: 2_000,
    socketTimeoutMS: options.replyTimeoutMs ?? REPLY_TIMEOUT_MS,
    heartbeatFrequencyMS: 500,
    maxPoolSize: 50,
    retryWrites: true,
    retryReads: true,
    // Every write waits for a majority of the replica set (and its journal): a write only a
    // primary saw can be rolled back by a failover, which could re-enable a disabled key or
    // undo a catalog change. Money writes (ledger, credits) also ask for it explicitly.
    writeConcern: { w: 'majority', journal: true },
    // Plain polling instead of long-polled `hello` streams: simpler on every server build.
    serverMonitoringMode: 'poll',
  });
  return { client, db: client.db(dbName), close: () => client.close() };
}
