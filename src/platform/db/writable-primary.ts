import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import { connectMongo, type Mongo, type MongoOptions } from './mongo.js';

/** How long a starting process waits for MongoDB to elect a writable primary. */
export const PRIMARY_WAIT_MS = 60_000;

/** Options for {@link connectWritable}. */
export interface ConnectWritableOptions extends MongoOptions {
  readonly timeoutMs?: number;
  readonly intervalMs?: number;
  readonly log?: Logger;
}

/** True when the node this client talks to is a primary that takes writes right now. */
export async function isWritablePrimary(mongo: Mongo): Promise<boolean> {
  const hello = await mongo.client.db('admin').command({ hello: 1 });
  return hello.isWritablePrimary === true;
}

/**
 * Connects to MongoDB and waits until it has a writable primary. A replica set that was just
 * initiated, restarted or reconfigured spends a few seconds electing one; starting processes
 * wait that out (bounded) instead of crashing on "node is not in primary or recovering state".
 */
export async function connectWritable(uri: string, dbName: string, options: ConnectWritableOptions = {}): Promise<Mongo> {
  const deadline = Date.now() + (options.timeoutMs ?? PRIMARY_WAIT_MS);
  let mongo: Mongo | undefined;
  let lastError: unknown;
  for (let attempt = 0; ; attempt += 1) {
    try {
      mongo ??= await connectMongo(uri, dbName, options);
      if (await isWritablePrimary(mongo)) return mongo;
      lastError = new Error('MongoDB has no writable primary yet');
    } catch (err) {
      lastError = err;
    }
    if (Date.now() >= deadline) break;
    if (attempt === 0) options.log?.warn('waiting for a writable MongoDB primary');
    await sleep(options.intervalMs ?? 250);
  }
  await mongo?.close().catch(() => undefined);
  throw lastError instanceof Error ? lastError : new Error('MongoDB has no writable primary');
}
