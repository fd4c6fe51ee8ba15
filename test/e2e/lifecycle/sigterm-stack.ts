import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { connectMongo } from '../../../src/platform/db/mongo.js';
import { prepareDatabase } from '../../../src/store/prepare-database.js';
import { adminClient } from '../../helpers/admin-client.js';
import { TEST_ADMIN_TOKEN } from '../../helpers/test-gateway.js';
import { uniqueName } from '../../setup/test-context.js';
import { startEntry, webReady, workerReady, type EntryProcess } from './entry-process.js';
import { faultMongo, faultRedis, restartableMongo, type FaultRedis, type RestartableMongo } from './fault-stores.js';
import { startStallingUpstream, type StallingUpstream } from './stalling-upstream.js';

const CATALOG = fileURLToPath(new URL('../../../src/catalog/seed-models.json', import.meta.url));

/** A web and a worker on private stores the test may kill, with a funded key. */
export interface SigtermStack {
  web: EntryProcess;
  worker: EntryProcess;
  redis: FaultRedis;
  /** `start` is there when the stack was made with `restartableMongo`. */
  mongo: { url: string; stop: () => Promise<void>; start?: () => Promise<void> };
  upstream: StallingUpstream;
  rawKey: string;
  /** The environment the processes run with (for starting another web). */
  env: Record<string, string>;
  dispose(): Promise<void>;
}

async function writeProviders(dir: string, upstreamUrl: string): Promise<string> {
  const file = path.join(dir, 'providers.json');
  await writeFile(file, JSON.stringify([
    { id: 'local', kind: 'local' },
    { id: 'stall', kind: 'openai', base_url: `${upstreamUrl}/v1`, api_key_env: 'STALL_KEY' },
    { id: 'stall-images', kind: 'openai-images', base_url: `${upstreamUrl}/v1`, api_key_env: 'STALL_KEY' },
  ]));
  return file;
}

async function seed(webUrl: string): Promise<string> {
  const admin = adminClient(webUrl);
  const put = async (id: string, body: Record<string, unknown>): Promise<void> => {
    const res = await admin.call('PUT', `/models/${id}`, body);
    if (res.status >= 300) throw new Error(`PUT model ${id}: ${res.status} ${JSON.stringify(res.body)}`);
  };
  await put('stall/chat', { name: 'stall chat', kind: 'chat', provider: 'stall', upstream_model: 'stall', pricing: { prompt: '0.000001', completion: '0.000002' }, context_length: 100_000 });
  await put('stall/finite', { name: 'finite chat', kind: 'chat', provider: 'stall', upstream_model: 'finite', pricing: { prompt: '0.000001', completion: '0.000002' }, context_length: 100_000 });
  await put('stall/image', { name: 'stall image', kind: 'image', provider: 'stall-images', upstream_model: 'dall-e-3', pricing: { image: '0.04' } });
  const accountId = await admin.createAccount();
  await admin.topup(accountId, 20);
  return (await admin.mintKey(accountId)).raw;
}

/**
 * Starts a private redis-server and mongod, prepares a database, and runs the real web and
 * worker processes against them with the default shutdown grace period (the contract under
 * test). Nothing here uses the run's shared stores: this stack's stores get killed.
 */
export async function startSigtermStack(options: { restartableMongo?: boolean } = {}): Promise<SigtermStack> {
  const dir = await mkdtemp(path.join(tmpdir(), 'fbx-sigterm-'));
  const upstream = await startStallingUpstream();
  const [redis, mongo] = await Promise.all([faultRedis(), options.restartableMongo ? restartableMongo() : faultMongo()]);
  const stopMongo = (): Promise<void> => ('dispose' in mongo ? (mongo as RestartableMongo).dispose() : mongo.stop());
  const name = uniqueName('sigterm');
  const m = await connectMongo(mongo.url, name);
  await prepareDatabase(m.db, CATALOG).finally(() => m.close());
  const env = {
    NODE_ENV: 'test',
    LOG_LEVEL: 'info',
    REDIS_URL: redis.url,
    MONGODB_URI: mongo.url,
    MONGODB_DB: name,
    REDIS_PREFIX: name,
    ADMIN_TOKEN: TEST_ADMIN_TOKEN,
    PROVIDERS_FILE: await writeProviders(dir, upstream.url),
    STALL_KEY: 'sk-stall-0000000000',
    // Jobs outlive the shutdown by far: the worker must hand them back, not finish them.
    JOB_TIMEOUT_MS: '120000',
    WORKER_CONCURRENCY: '2',
  };
  const [web, worker] = await Promise.all([startEntry('src/http/server.ts', env, webReady), startEntry('workers/main.ts', env, workerReady)]);
  const rawKey = await seed(web.url);
  return {
    web, worker, redis, mongo, upstream, rawKey, env,
    async dispose() {
      await Promise.all([web.kill(), worker.kill()]);
      await Promise.all([redis.dispose(), stopMongo(), upstream.close()]);
      await rm(dir, { recursive: true, force: true });
    },
  };
}
