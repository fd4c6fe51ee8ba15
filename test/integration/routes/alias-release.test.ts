import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { prepareDatabase } from '../../../src/store/prepare-database.js';
import { testMongoUri, uniqueName } from '../../setup/test-context.js';

let client: MongoClient;
let dir: string;
const dbName = uniqueName('fbx-alias');

beforeAll(async () => {
  client = await MongoClient.connect(testMongoUri());
  dir = await mkdtemp(join(tmpdir(), 'fbx-alias-'));
});
afterAll(async () => {
  await client.db(dbName).dropDatabase().catch(() => undefined);
  await client?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const entry = (id: string, aliases: string[]) => ({
  id, name: id, kind: 'chat', provider: 'local', upstream_model: 'echo', pricing: { prompt: '0', completion: '0' }, aliases,
});

it('the release step refuses a seed whose alias shadows an id or is claimed twice, and loads a clean one', async () => {
  const file = join(dir, 'seed.json');
  await writeFile(file, JSON.stringify([entry('v/a', ['v/b']), entry('v/b', [])]));
  await expect(prepareDatabase(client.db(dbName), file)).rejects.toThrow(/alias 'v\/b' of v\/a is the id of a model/);
  await writeFile(file, JSON.stringify([entry('v/a', ['v/x']), entry('v/b', ['v/x'])]));
  await expect(prepareDatabase(client.db(dbName), file)).rejects.toThrow(/claimed by v\/a and v\/b/);
  await writeFile(file, JSON.stringify([entry('v/a', ['v/a-latest']), entry('v/b', [])]));
  await expect(prepareDatabase(client.db(dbName), file)).resolves.toMatchObject({ models: 2 });
});
