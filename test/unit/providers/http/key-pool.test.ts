import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { GatewayError } from '../../../../src/platform/errors/gateway-error.js';
import { KeyPool, keyedClient } from '../../../../src/providers/http/key-pool.js';
import { KeyTrail, keyTrailOf, startKeyTrail, stopKeyTrail } from '../../../../src/providers/http/key-trail.js';
import { bearer } from '../../../../src/providers/http/provider-client.js';
import { createUpstreamClient } from '../../../../src/providers/http/upstream-client.js';

/** Each key value gets its own answer: out of quota (OpenAI's 429), refused, broken, or fine. */
const ANSWERS: Record<string, [number, string]> = {
  'Bearer sk-broke': [429, JSON.stringify({ error: { message: 'You exceeded your current quota', type: 'insufficient_quota', code: 'insufficient_quota' } })],
  'Bearer sk-refused': [403, JSON.stringify({ error: { message: 'Forbidden' } })],
  'Bearer sk-failing': [500, JSON.stringify({ error: { message: 'boom' } })],
  'Bearer sk-good': [200, JSON.stringify({ ok: true })],
};
let server: Server;
let url: string;
const seen: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const auth = String(req.headers.authorization);
    seen.push(auth);
    const [status, body] = ANSWERS[auth] ?? [401, '{}'];
    res.writeHead(status, { 'content-type': 'application/json' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/x`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const upstream = createUpstreamClient({ connectMs: 2000, firstByteMs: 2000, idleMs: 2000 });
function clientOver(values: string[], setAside: string[] = []) {
  const keys = values.map((value, i) => ({ env: `KEY_${i + 1}`, value }));
  return keyedClient(upstream, new KeyPool('p', keys, (e) => setAside.push(`${e.keyEnv}:${e.reason}`)), bearer);
}
const call = (client: ReturnType<typeof clientOver>, signal = AbortSignal.timeout(5000)) => client.json({ url, body: '{}', signal });

it('a key out of quota hands the same request to the next key, and the trail names both by variable', async () => {
  const aside: string[] = [];
  const client = clientOver(['sk-broke', 'sk-good'], aside);
  const trail = new KeyTrail();
  seen.length = 0;
  const signal = AbortSignal.timeout(5000);
  startKeyTrail(signal, trail);
  const res = await call(client, signal);
  expect(res.body).toEqual({ ok: true });
  expect(seen).toEqual(['Bearer sk-broke', 'Bearer sk-good']);
  expect(trail.tries.map((t) => [t.env, t.refusal?.upstream?.code])).toEqual([['KEY_1', 'insufficient_quota'], ['KEY_2', undefined]]);
  expect(aside).toEqual(['KEY_1:insufficient_quota']);
  expect(JSON.stringify(trail.tries)).not.toContain('sk-');
  seen.length = 0;
  await call(client);
  expect(seen).toEqual(['Bearer sk-good']);
});

it('a trail notes only the calls made with its signal, and only until it is stopped', async () => {
  const client = clientOver(['sk-good']);
  const signal = AbortSignal.timeout(5000);
  const trail = startKeyTrail(signal);
  await call(client);
  expect(trail.tries).toEqual([]);
  await call(client, signal);
  expect(trail.tries.map((t) => t.env)).toEqual(['KEY_1']);
  stopKeyTrail(signal, trail);
  await call(client, signal);
  expect(trail.tries).toHaveLength(1);
  expect(keyTrailOf(signal)).toBeUndefined();
});

it('a failure that is not the key\'s (500) is not handed on', async () => {
  const client = clientOver(['sk-failing', 'sk-good']);
  seen.length = 0;
  const err = await call(client).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(GatewayError);
  expect((err as GatewayError).upstream?.status).toBe(500);
  expect(seen).toEqual(['Bearer sk-failing']);
});

it('every key refused: the last refusal reaches the caller, then the pool fails without a call', async () => {
  const aside: string[] = [];
  const client = clientOver(['sk-refused', 'sk-broke'], aside);
  seen.length = 0;
  const err = (await call(client).catch((e: unknown) => e)) as GatewayError;
  expect(err.upstream?.code).toBe('insufficient_quota');
  expect(aside).toEqual(['KEY_1:status_403', 'KEY_2:insufficient_quota']);
  const again = (await call(client).catch((e: unknown) => e)) as GatewayError;
  expect(again.upstream?.code).toBe('keys_exhausted');
  expect(seen).toEqual(['Bearer sk-refused', 'Bearer sk-broke']);
});
