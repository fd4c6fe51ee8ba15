import { Writable } from 'node:stream';
import { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KeyDoc } from '../../../../src/accounts/keys/key-types.js';
import { createLogger } from '../../../../src/platform/log/logger.js';
import { RecordWriter } from '../../../../src/ledger/records/record-writer.js';
import { RequestRecorder } from '../../../../src/ledger/records/request-recorder.js';
import type { RequestRecordDoc } from '../../../../src/ledger/records/request-record-types.js';
import { ShutdownReport } from '../../../../src/platform/runtime/shutdown-report.js';
import { runSteps } from '../../../../src/platform/runtime/shutdown.js';
import { storeShutdownSteps } from '../../../../src/platform/runtime/store-steps.js';
import { startTestGateway, type TestGateway } from '../../../helpers/test-gateway.js';
import { testMongoUri, uniqueName } from '../../../setup/test-context.js';

const HOUR_MS = 3_600_000;
const key = { _id: 'key_writer', account_id: 'acct_writer' } as KeyDoc;
const end = { key, status: 200, errorCode: undefined, requestedModel: 'local/echo', requestedStream: false };

function captureLog() {
  let text = '';
  const log = createLogger('warn', new Writable({ write: (c: Buffer, _e, done) => { text += c.toString(); done(); } }));
  return { log, text: () => text };
}

function doc(id: string): RequestRecordDoc {
  return { _id: id, account_id: 'acct_w', key_id: 'key_w', endpoint: '/v1/ocr', model: null, provider: null, stream: false, status: 400,
    error_code: 'invalid_request', usage: {}, cost: 0n, latency_ms: 1, created_at: new Date() };
}

describe('batched record writer', () => {
  let client: MongoClient;
  beforeAll(async () => {
    client = await MongoClient.connect(testMongoUri(), { useBigInt64: true });
  });
  afterAll(async () => client?.close());

  it('writes many records in a few batches and ignores a replayed id', async () => {
    const records = client.db(uniqueName('records')).collection<RequestRecordDoc>('request_records');
    let dropped = 0;
    const writer = new RecordWriter(records, captureLog().log, (n) => { dropped += n; }, { maxBatch: 100, flushMs: 5 });
    for (let i = 0; i < 250; i += 1) writer.add(doc(`req_${i}`));
    writer.add(doc('req_7'));
    await writer.drain();
    expect(await records.countDocuments()).toBe(250);
    expect(dropped).toBe(0);
    await records.db.dropDatabase();
  });

  it('counts a record MongoDB refuses as dropped and stores the rest of its batch', async () => {
    const db = client.db(uniqueName('records'));
    // A validator that refuses one record: a document-level error, reported in the reply.
    const records = await db.createCollection<RequestRecordDoc>('request_records', { validator: { status: { $lt: 600 } } });
    const { log, text } = captureLog();
    let dropped = 0;
    const writer = new RecordWriter(records, log, (n) => { dropped += n; }, { maxBatch: 100, flushMs: 5 });
    for (const [id, status] of [['req_a', 200], ['req_b', 700], ['req_c', 400]] as const) writer.add({ ...doc(id), status });
    writer.add(doc('req_a'));
    await writer.drain();
    expect((await records.find().toArray()).map((r) => r._id).sort()).toEqual(['req_a', 'req_c']);
    expect(dropped).toBe(1);
    expect(text()).toContain('request records not stored');
    await db.dropDatabase();
  });

  it('drops and counts records while MongoDB is unreachable, with a warning', async () => {
    const down = new MongoClient('mongodb://127.0.0.1:1/?directConnection=true', { serverSelectionTimeoutMS: 200 });
    const { log, text } = captureLog();
    let dropped = 0;
    const writer = new RecordWriter(down.db('x').collection<RequestRecordDoc>('request_records'), log, (n) => { dropped += n; }, { flushMs: 1, maxBuffered: 3 });
    for (let i = 0; i < 5; i += 1) writer.add(doc(`req_down_${i}`));
    await writer.drain();
    expect(dropped).toBe(5);
    expect(text()).toContain('request records not stored');
    expect(text()).toContain('request record buffer full');
    await down.close();
  });
});

describe('shutdown', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway();
  });
  // The stores are already closed by the steps under test; this stops the HTTP server.
  afterAll(async () => gw?.close());

  it('flushes buffered records before MongoDB closes', async () => {
    const { deps } = gw;
    const db = deps.config.mongoDb;
    // A writer that would not flush for an hour: only the shutdown step can write its records.
    const writer = new RecordWriter(deps.c.requestRecords, deps.log, () => undefined, { flushMs: HOUR_MS });
    const recorder = new RequestRecorder(writer, deps.metrics.outcomes, deps.catalog, deps.clock);
    for (const id of ['req_shutdown_a', 'req_shutdown_b']) recorder.finish(recorder.open(id, '/v1/chat/completions'), end);
    await new Promise((r) => setTimeout(r, 50));
    expect(await deps.c.requestRecords.countDocuments()).toBe(0);
    expect(recorder.pending).toBe(2);

    const report = await runSteps(storeShutdownSteps({ ...deps, requests: recorder }), 10_000, new ShutdownReport());
    expect(report.clean, report.summary()).toBe(true);
    const check = await MongoClient.connect(testMongoUri());
    try {
      const stored = await check.db(db).collection('request_records').find().toArray();
      expect(stored.map((r) => r._id).sort()).toEqual(['req_shutdown_a', 'req_shutdown_b']);
      await check.db(db).dropDatabase();
    } finally {
      await check.close();
    }
  });
});
