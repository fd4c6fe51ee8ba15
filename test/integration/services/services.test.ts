import { Redis } from 'ioredis';
import { MongoClient, type Db } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MONGO_URI_ENV, REDIS_URL_ENV } from '../../setup/provided-context.js';
import { testMongoUri, testRedisUrl, uniqueName } from '../../setup/test-context.js';

describe('service URLs', () => {
  it('reach processes the tests spawn through the environment', () => {
    expect(process.env[REDIS_URL_ENV]).toBe(testRedisUrl());
    expect(process.env[MONGO_URI_ENV]).toBe(testMongoUri());
    expect(testMongoUri()).toMatch(/^mongodb:\/\//);
    expect(testRedisUrl()).toMatch(/^rediss?:\/\//);
  });

  it('gives every caller its own database name', () => {
    const names = new Set(Array.from({ length: 50 }, () => uniqueName('Ledger Tests.v2')));
    expect(names.size).toBe(50);
    for (const name of names) expect(name).toMatch(/^ledger_tests_v2_[a-z0-9]+_[0-9a-f]{10}$/);
  });
});

describe('Redis from the services setup', () => {
  let redis: Redis;
  const prefix = `${uniqueName('services')}:`;

  beforeAll(() => {
    redis = new Redis(testRedisUrl(), { keyPrefix: prefix, maxRetriesPerRequest: 1 });
  });
  afterAll(async () => {
    await redis.quit();
  });

  it('answers PING and round-trips a value', async () => {
    expect(await redis.ping()).toBe('PONG');
    await redis.set('greeting', 'hello', 'EX', 60);
    expect(await redis.get('greeting')).toBe('hello');
  });
});

describe('MongoDB from the services setup', () => {
  let client: MongoClient;
  let db: Db;

  beforeAll(async () => {
    client = new MongoClient(testMongoUri(), { serverSelectionTimeoutMS: 10_000 });
    await client.connect();
    db = client.db(uniqueName('services'));
  });
  afterAll(async () => {
    await db.dropDatabase();
    await client.close();
  });

  it('is the writable primary of a replica set', async () => {
    const hello = await db.admin().command({ hello: 1 });
    expect(hello.isWritablePrimary).toBe(true);
    expect(hello.setName).toBe('rs0');
  });

  it('commits every write of a multi-document transaction together', async () => {
    const ledger = db.collection<{ _id: string; amount: number }>('ledger');
    await ledger.insertOne({ _id: 'opening', amount: 0 });
    const session = client.startSession();
    try {
      await session.withTransaction(async () => {
        await ledger.insertOne({ _id: 'charge-1', amount: -3 }, { session });
        await ledger.insertOne({ _id: 'charge-2', amount: -4 }, { session });
        await ledger.updateOne({ _id: 'opening' }, { $set: { amount: 10 } }, { session });
        // Inside the transaction the writes are not visible to other readers yet.
        expect(await ledger.countDocuments({ _id: /^charge-/ })).toBe(0);
      });
    } finally {
      await session.endSession();
    }
    const rows = await ledger.find().sort({ _id: 1 }).toArray();
    expect(rows).toEqual([
      { _id: 'charge-1', amount: -3 },
      { _id: 'charge-2', amount: -4 },
      { _id: 'opening', amount: 10 },
    ]);
  });

  it('leaves nothing behind when a transaction aborts', async () => {
    const holds = db.collection<{ _id: string }>('holds');
    await holds.insertOne({ _id: 'existing' });
    const session = client.startSession();
    try {
      session.startTransaction();
      await holds.insertOne({ _id: 'pending-1' }, { session });
      await holds.deleteOne({ _id: 'existing' }, { session });
      expect(await holds.countDocuments({}, { session })).toBe(1);
      await session.abortTransaction();
    } finally {
      await session.endSession();
    }
    expect(await holds.find().toArray()).toEqual([{ _id: 'existing' }]);
  });

  it('rejects a conflicting write from a concurrent transaction', async () => {
    const accounts = db.collection<{ _id: string; balance: number }>('accounts');
    await accounts.insertOne({ _id: 'acct', balance: 5 });
    const first = client.startSession();
    const second = client.startSession();
    try {
      first.startTransaction();
      second.startTransaction();
      await accounts.updateOne({ _id: 'acct' }, { $inc: { balance: -1 } }, { session: first });
      await expect(
        accounts.updateOne({ _id: 'acct' }, { $inc: { balance: -2 } }, { session: second }),
      ).rejects.toMatchObject({ codeName: 'WriteConflict' });
      await second.abortTransaction().catch(() => undefined);
      await first.commitTransaction();
    } finally {
      await first.endSession();
      await second.endSession();
    }
    expect(await accounts.findOne({ _id: 'acct' })).toEqual({ _id: 'acct', balance: 4 });
  });
});
