import { connect } from 'node:net';
import { NO_EQUIVALENT, TARGETS } from './bench-targets.js';
import { BENCH_CHAT_MODEL } from './bench-seed.js';
import { measured, type ScenarioContext, type ScenarioOutput } from './scenario-context.js';

/** Longest the scenario waits for one hostile request before recording it as unanswered. */
const REQUEST_TIMEOUT_MS = 30_000;

/** One hostile request: over fetch, or as raw bytes for what the HTTP parser must refuse. */
interface HostileCase {
  name: string;
  send: (url: string) => Promise<number>;
}

async function post(url: string, path: string, key: string, contentType: string | undefined, body: string): Promise<number> {
  const headers: Record<string, string> = { authorization: `Bearer ${key}` };
  if (contentType !== undefined) headers['content-type'] = contentType;
  const res = await fetch(`${url}${path}`, { method: 'POST', headers, body, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
  await res.arrayBuffer();
  return res.status;
}

/** Sends raw bytes and resolves the status code of the answer (0 when none came). */
async function raw(url: string, request: string): Promise<number> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    let text = '';
    const socket = connect(Number(port), hostname, () => socket.end(request));
    socket.setTimeout(REQUEST_TIMEOUT_MS, () => socket.destroy());
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0)));
  });
}

const chat = (model: string, extra: Record<string, unknown>) => JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }], max_tokens: 16, ...extra });
const tool = (schema: Record<string, unknown>) => [{ type: 'function', function: { name: 'f', parameters: { type: 'object', properties: { a: schema }, required: ['a'] } } }];
const host = 'Host: 127.0.0.1\r\n';

/** The hostile corpus (the same classes the test suite keeps fixed), for keys of the bench account. */
function corpus(funded: string, freeTier: string): HostileCase[] {
  const run = 'a'.repeat(100 * 1024);
  const json = 'application/json';
  return [
    { name: '100 KB run, free tier, paid model', send: (u) => post(u, '/v1/chat/completions', freeTier, json, chat(BENCH_CHAT_MODEL, { messages: [{ role: 'user', content: run }] })) },
    { name: '100 KB run, funded, local/echo', send: (u) => post(u, '/v1/chat/completions', funded, json, chat('local/echo', { messages: [{ role: 'user', content: run }] })) },
    { name: 'JSON nested 200,000 deep', send: (u) => post(u, '/v1/chat/completions', funded, json, `{"model":"local/echo","metadata":${'['.repeat(200_000)}${']'.repeat(200_000)}}`) },
    { name: 'array of 10,001 messages', send: (u) => post(u, '/v1/chat/completions', funded, json, chat('local/echo', { messages: Array.from({ length: 10_001 }, () => ({ role: 'user', content: 'x' })) })) },
    { name: 'edits with JSON and no body', send: (u) => post(u, '/v1/images/edits', funded, json, '') },
    { name: 'chat as text/plain', send: (u) => post(u, '/v1/chat/completions', funded, 'text/plain', chat('local/echo', {})) },
    { name: 'NUL byte in a header', send: (u) => raw(u, `GET /v1/models HTTP/1.1\r\n${host}X-Bad: a\u0000b\r\n\r\n`) },
    { name: '60 KB header', send: (u) => raw(u, `GET /v1/models HTTP/1.1\r\n${host}X-Big: ${'a'.repeat(60 * 1024)}\r\n\r\n`) },
    { name: 'Content-Length with Transfer-Encoding', send: (u) => raw(u, `POST /v1/chat/completions HTTP/1.1\r\n${host}Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`) },
    { name: 'HTTP/9.9', send: (u) => raw(u, `GET /v1/models HTTP/9.9\r\n${host}\r\n`) },
    { name: 'tool schema minLength 2,000,000', send: (u) => post(u, '/v1/chat/completions', funded, json, chat('local/echo', { tools: tool({ type: 'string', minLength: 2_000_000 }), tool_choice: 'required' })) },
    { name: 'tool schema minItems 1e8', send: (u) => post(u, '/v1/chat/completions', funded, json, chat('local/echo', { tools: tool({ type: 'array', items: { type: 'integer' }, minItems: 100_000_000 }), tool_choice: 'required' })) },
  ];
}

async function operator(ctx: ScenarioContext, method: string, path: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${ctx.stack.webUrl}${path}`, { method, headers: { authorization: `Bearer ${ctx.stack.adminToken}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status}`);
  return (await res.json()) as Record<string, unknown>;
}

/** A free-tier inference key (an account that never got a top-up). */
async function freeTierKey(ctx: ScenarioContext): Promise<string> {
  const account = (await operator(ctx, 'POST', '/v1/admin/accounts', { name: `bench-free-${ctx.stack.runId}` })) as { data: { account_id: string } };
  const minted = (await operator(ctx, 'POST', `/v1/admin/accounts/${account.data.account_id}/keys`, { name: 'bench-free' })) as { key: string };
  return minted.key;
}

/**
 * The web's event-loop delay since its previous scrape (`stat="max"`), in ms; NaN when the web
 * does not answer in time (its loop is still blocked, which the report then says).
 */
async function loopDelayMs(ctx: ScenarioContext): Promise<number> {
  const signal = AbortSignal.timeout(REQUEST_TIMEOUT_MS);
  const res = await fetch(`${ctx.stack.webUrl}/metrics`, { headers: { authorization: `Bearer ${ctx.stack.adminToken}` }, signal }).catch(() => undefined);
  if (!res) return Number.NaN;
  const line = /^farebox_event_loop_delay_seconds\{stat="max"\} (\S+)$/m.exec(await res.text());
  return line?.[1] === undefined ? Number.NaN : Number(line[1]) * 1000;
}

/**
 * Sends the hostile corpus one request at a time and reports the slowest single request and
 * the worst event-loop delay of the web, read from /metrics after each request (the window
 * restarts at each scrape, so each reading belongs to one request).
 */
export async function hostileScenario(ctx: ScenarioContext): Promise<ScenarioOutput> {
  const cases = corpus(ctx.stack.account.key, await freeTierKey(ctx));
  await loopDelayMs(ctx);
  const { value: timings, steal } = await measured(ctx, 'hostile corpus', () => sendCorpus(ctx, cases));
  const entries = Object.entries(timings);
  const blocked = entries.some(([, t]) => Number.isNaN(t.loopDelayMs));
  const worstLoopMs = blocked ? Number.NaN : Math.max(...entries.map(([, t]) => t.loopDelayMs));
  const [slowestName, slowest] = entries.reduce((a, b) => (b[1].ms > a[1].ms ? b : a));
  const none = { floor: null, portkey: null, portkeyNote: NO_EQUIVALENT, steal };
  return {
    rows: [
      { id: 'hostile-loop-delay', scenario: 'hostile corpus: worst event-loop delay', unit: 'ms', farebox: worstLoopMs, target: TARGETS.hostileLoopDelay, ...(blocked ? { valid: false, note: 'web still blocked, /metrics unanswered' } : {}), ...none },
      { id: 'hostile-slowest', scenario: `hostile corpus: slowest request (${slowestName})`, unit: 'ms', farebox: slowest.ms, ...none },
    ],
    details: { worstEventLoopDelayMs: worstLoopMs, slowest: { name: slowestName, ...slowest }, requests: timings },
  };
}

type Timings = Record<string, { status: number; ms: number; loopDelayMs: number }>;

async function sendCorpus(ctx: ScenarioContext, cases: readonly HostileCase[]): Promise<Timings> {
  const timings: Timings = {};
  for (const c of cases) {
    const started = performance.now();
    const status = await c.send(ctx.stack.webUrl).catch(() => 0);
    const ms = Math.round(performance.now() - started);
    const loopDelay = await loopDelayMs(ctx);
    timings[c.name] = { status, ms, loopDelayMs: Math.round(loopDelay) };
    ctx.log(`hostile: ${c.name} → ${status || 'no answer'} in ${ms} ms; event-loop delay ${Number.isNaN(loopDelay) ? 'unread (web blocked)' : `${Math.round(loopDelay)} ms`}`);
  }
  return timings;
}
