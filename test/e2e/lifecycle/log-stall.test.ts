import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { adminClient, call } from '../../helpers/admin-client.js';
import { spawnWeb, type WebProcess } from '../../helpers/spawn-web.js';
import { startTestGateway, testEnv, TEST_ADMIN_TOKEN, type TestGateway } from '../../helpers/test-gateway.js';
import { waitFor } from '../../helpers/wait-for.js';

/**
 * A real web process whose stdout nobody reads (a paused pager, a slow log driver): its pipe
 * fills within a few hundred requests. The web must keep answering as usual, drop what its
 * bounded log buffer cannot hold, count the drops, and say how many once stdout is read again.
 */
const BUFFER_CHARS = 65_536;
let setup: TestGateway;
let web: WebProcess;
let raw: string;

beforeAll(async () => {
  const env = testEnv({ LOG_LEVEL: 'info', LOG_BUFFER_CHARS: String(BUFFER_CHARS) });
  setup = await startTestGateway({ env });
  const admin = adminClient(setup.url);
  const accountId = await admin.createAccount();
  await admin.topup(accountId, 50);
  raw = (await admin.mintKey(accountId)).raw;
  web = await spawnWeb(env, 60_000, { holdStdout: true });
}, 180_000);
afterAll(async () => {
  web?.readStdout();
  await web?.stop();
  await setup?.close();
});

/** A request that must answer well within what a stalled log would cost (1 s per line before). */
const timely = { signal: () => AbortSignal.timeout(20_000) };

async function metric(name: string): Promise<number> {
  const res = await fetch(`${web.url}/metrics`, { headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` }, signal: timely.signal() });
  const line = (await res.text()).split('\n').find((l) => l.startsWith(`${name} `));
  return Number(line?.split(' ')[1] ?? Number.NaN);
}

async function rssKb(): Promise<number> {
  const status = await readFile(`/proc/${web.pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]);
}

/** One round: 20 chats (4 of them streamed) and a health check, side by side; every one must answer 200. */
async function round(): Promise<void> {
  const chats = Array.from({ length: 20 }, async (_, i) => {
    const stream = i % 5 === 0;
    const res = await fetch(`${web.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${raw}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'local/echo', max_tokens: 20, stream, messages: [{ role: 'user', content: `hello ${i}` }] }),
      signal: timely.signal(),
    });
    const text = await res.text();
    return { status: res.status, done: !stream || text.includes('[DONE]') };
  });
  const health = fetch(`${web.url}/healthz`, { signal: timely.signal() }).then((r) => ({ status: r.status, done: true }));
  const answers = await Promise.all([...chats, health]);
  expect(answers.filter((a) => a.status !== 200 || !a.done)).toEqual([]);
}

it('keeps answering while stdout is not read, drops and counts log lines, and reports them once read again', async () => {
  let rounds = 0;
  // Until lines are dropped: the pipe and the buffer behind it are full.
  while ((await metric('farebox_log_lines_dropped_total')) === 0) {
    await round();
    rounds += 1;
    expect(rounds, 'the log buffer never filled').toBeLessThan(200);
  }
  const rssAtFull = await rssKb();
  // Carry on under load with the output still stalled.
  for (let i = 0; i < 30; i += 1) await round();
  const dropped = await metric('farebox_log_lines_dropped_total');
  expect(dropped).toBeGreaterThan(0);
  expect(await metric('farebox_log_buffer_chars')).toBeLessThanOrEqual(BUFFER_CHARS);
  // Memory stays bounded: 30 more rounds of logging into a full buffer add nothing that stays.
  const rssAfter = await rssKb();
  expect(rssAfter - rssAtFull, `RSS ${rssAtFull} kB at full, ${rssAfter} kB after`).toBeLessThan(64 * 1024);
  const quick = await call(web.url, 'GET', '/healthz');
  expect(quick.status).toBe(200);
  // The reader comes back: one line says how many lines it missed.
  web.readStdout();
  const report = await waitFor('the dropped-lines report', () => web.output().split('\n').find((l) => l.includes('"dropped_lines"')));
  const reported = JSON.parse(report) as { dropped_lines: number; process: string; level: number };
  expect(reported).toMatchObject({ process: 'web', level: 40 });
  expect(reported.dropped_lines).toBeGreaterThan(0);
  expect(reported.dropped_lines).toBeLessThanOrEqual(await metric('farebox_log_lines_dropped_total'));
  // And logging goes on as before.
  await round();
  await waitFor('access lines after the report', () => web.output().split('\n').some((l) => l.includes('"path":"/healthz"')));
}, 600_000);
