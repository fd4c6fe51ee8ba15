import { connect } from 'node:net';
import { expect } from 'vitest';
import { ERROR_TABLE, type ErrorCode } from '../../src/platform/errors/error-table.js';
import { adminClient } from '../helpers/admin-client.js';
import { LOOPBACK_GUARD_OPTIONS } from '../setup/block-network.js';
import { spawnWeb, type WebProcess } from '../helpers/spawn-web.js';
import { startTestGateway, testEnv, TEST_ADMIN_TOKEN, type TestGateway } from '../helpers/test-gateway.js';

/**
 * A spawned web process over real Redis and MongoDB, with the keys hostile-input tests use:
 * a funded inference key, a free-tier (unfunded) inference key and a management key.
 */
export interface EdgeWeb {
  url: string;
  web: WebProcess;
  funded: string;
  freeTier: string;
  management: string;
  fundedAccount: string;
  /** A key of the funded account that no other request uses, for operator calls to change. */
  spareKeyId: string;
  close(): Promise<void>;
}

/** Starts the web for edge tests; the in-process gateway prepares the database and plays the operator. */
export async function startEdgeWeb(extraEnv: Record<string, string> = {}): Promise<EdgeWeb> {
  // Free-tier request limits far above any test's count, so refusals come from the input alone.
  const env = testEnv({ LOG_LEVEL: 'warn', FREE_TIER_RPM: '100000', FREE_TIER_RPD: '100000', ...extraEnv });
  const setup: TestGateway = await startTestGateway({ env });
  const admin = adminClient(setup.url);
  const fundedAccount = await admin.createAccount('funded');
  await admin.topup(fundedAccount, 50);
  const freeAccount = await admin.createAccount('free');
  const [funded, spare, freeTier, management] = await Promise.all([
    admin.mintKey(fundedAccount),
    admin.mintKey(fundedAccount),
    admin.mintKey(freeAccount),
    admin.mintKey(fundedAccount, { role: 'management' }),
  ]);
  const web = await spawnWeb({ ...env, NODE_OPTIONS: LOOPBACK_GUARD_OPTIONS });
  return {
    url: web.url,
    web,
    funded: funded.raw,
    freeTier: freeTier.raw,
    management: management.raw,
    fundedAccount,
    spareKeyId: spare.keyId,
    async close() {
      await web.stop();
      await setup.close();
    },
  };
}

/** Statuses an answer may have: success, or a 4xx whose code the error table maps to it. */
const SUCCESS = new Set([200, 201, 204]);

/**
 * Asserts one answer is well-formed: a success or a 4xx from the error table with the
 * `{error: {message, type, code, param}}` shape, never a 5xx, and both request id headers.
 */
export function expectWellFormed(status: number, headers: Headers, body: unknown, what: string): void {
  const id = headers.get('x-service-request-id');
  expect(id, `${what}: request id`).toMatch(/^req_[0-9a-f]+$/);
  expect(headers.get('x-request-id'), `${what}: x-request-id`).toBe(id);
  if (SUCCESS.has(status)) return;
  expect(status, `${what}: status ${status} ${JSON.stringify(body).slice(0, 300)}`).toBeGreaterThanOrEqual(400);
  expect(status, `${what}: status ${status} ${JSON.stringify(body).slice(0, 300)}`).toBeLessThan(500);
  const error = (body as { error?: Record<string, unknown> } | null)?.error;
  expect(error, `${what}: error shape`).toEqual({
    message: expect.any(String),
    type: expect.any(String),
    code: expect.any(String),
    param: error?.param === null ? null : expect.any(String),
    // The one documented addition: a refusal for max_cost carries the quote it was judged on.
    ...(error?.code === 'max_cost_exceeded' ? { quote: expect.objectContaining({ hold_usd: expect.any(String), lines: expect.any(Array) }) } : {}),
  });
  const row = ERROR_TABLE[String(error?.code) as ErrorCode];
  expect(row, `${what}: code ${String(error?.code)} in the error table`).toBeDefined();
  expect([row?.status, row?.type], `${what}: status/type match the table`).toEqual([status, error?.type]);
  if (status !== 408 && status !== 409 && status !== 429) expect(headers.get('x-should-retry'), `${what}: x-should-retry`).toBe('false');
  if (status === 429) expect(Number(headers.get('retry-after')), `${what}: Retry-After`).toBeGreaterThanOrEqual(1);
}

/** Parses a body as JSON when it is JSON, else keeps the text. */
export function parseBody(text: string): unknown {
  try {
    return text ? JSON.parse(text) : null;
  } catch {
    return text;
  }
}

/**
 * How long the web takes to answer `/healthz` while other work is in flight. The figures are
 * reported, and asserted only against {@link HEALTH_BOUND_MS}: a stall that large is a blocked
 * event loop on any machine, while scheduling noise on a loaded one stays far below it.
 */
export const HEALTH_BOUND_MS = 3_000;

/** Asks `/healthz` once; resolves its status and latency in ms. */
export async function probeHealth(url: string): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  const res = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(60_000) });
  await res.arrayBuffer();
  return { status: res.status, ms: performance.now() - started };
}

/**
 * Runs `work` while probing `/healthz` back to back; resolves the work's result, its duration,
 * and the slowest probe (at least one probe is made, after the work if it was quicker).
 */
export async function whileProbing<T>(url: string, work: () => Promise<T>): Promise<{ result: T; ms: number; worstProbeMs: number }> {
  let done = false;
  let worst = 0;
  let probes = 0;
  const loop = (async () => {
    await new Promise((r) => setTimeout(r, 5));
    while (!done || probes === 0) {
      const probe = await probeHealth(url);
      probes += 1;
      expect(probe.status).toBe(200);
      worst = Math.max(worst, probe.ms);
      if (!done) await new Promise((r) => setTimeout(r, 20));
    }
  })();
  const started = performance.now();
  try {
    const result = await work();
    const ms = performance.now() - started;
    done = true;
    await loop;
    return { result, ms, worstProbeMs: worst };
  } finally {
    done = true;
    await loop.catch(() => undefined);
  }
}

/** A raw HTTP exchange over TCP: sends `request` bytes, collects everything until the server closes. */
export async function rawExchange(url: string, request: Buffer | string, timeoutMs = 20_000): Promise<RawResponse> {
  const { hostname, port } = new URL(url);
  const chunks: Buffer[] = [];
  await new Promise<void>((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error('no answer (connection left open)'));
    }, timeoutMs);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve();
    });
    socket.write(request);
    socket.end();
  });
  return parseRaw(Buffer.concat(chunks).toString('latin1'));
}

/** A raw response: status, lower-cased headers and parsed body. */
export interface RawResponse {
  status: number;
  headers: Headers;
  body: unknown;
  raw: string;
}

function parseRaw(raw: string): RawResponse {
  const split = raw.indexOf('\r\n\r\n');
  const head = split < 0 ? raw : raw.slice(0, split);
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers = new Headers();
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
  }
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? 0);
  return { status, headers, body: parseBody(split < 0 ? '' : raw.slice(split + 4)), raw };
}

/** Reads one Prometheus sample from the web's /metrics. */
export async function readMetric(url: string, sample: string): Promise<number | undefined> {
  const res = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } });
  const text = await res.text();
  const line = text.split('\n').find((l) => l.startsWith(`${sample} `));
  return line === undefined ? undefined : Number(line.slice(sample.length + 1));
}
