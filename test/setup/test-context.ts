import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import { MONGO_URI_ENV, MONGO_URI_KEY, REDIS_URL_ENV, REDIS_URL_KEY } from './provided-context.js';

/** Redis URL of the run's shared Redis (from the global setup). */
export function testRedisUrl(): string {
  return required(inject(REDIS_URL_KEY) ?? process.env[REDIS_URL_ENV], 'Redis URL');
}

/**
 * MongoDB URI of the run's shared replica set, without a database name: pass
 * `uniqueName('…')` as the database so test files never see each other's data.
 */
export function testMongoUri(): string {
  return required(inject(MONGO_URI_KEY) ?? process.env[MONGO_URI_ENV], 'MongoDB URI');
}

/**
 * A name unique to this call, usable as a MongoDB database name (≤ 38 chars, no `.` `/` `$`
 * or spaces) and as a Redis key prefix / BullMQ queue name.
 */
export function uniqueName(prefix: string): string {
  const clean = prefix.toLowerCase().replace(/[^a-z0-9_-]+/g, '_').slice(0, 20) || 't';
  return `${clean}_${process.pid.toString(36)}_${randomBytes(5).toString('hex')}`;
}

function required(value: string | undefined, what: string): string {
  if (!value) throw new Error(`${what} not provided: is test/setup/global-setup.ts configured as globalSetup?`);
  return value;
}
