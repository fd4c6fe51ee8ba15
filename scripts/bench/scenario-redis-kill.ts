import path from 'node:path';
import { findFreePort } from '../services/free-port.js';
import { startRedis } from '../services/start-redis.js';
import { dropBenchData } from './bench-cleanup.js';
import { waitHttpReady } from './bench-processes.js';
import { admin, seedBench } from './bench-seed.js';
import { NO_EQUIVALENT } from './bench-targets.js';
import { chatBody, chatHeaders } from './chat-requests.js';
import type { Measurement } from './report-rows.js';
import type { ScenarioContext, ScenarioOutput } from './scenario-context.js';
import { startSideWeb } from './side-web.js';

/** Paid chats per second sent throughout. */
const PACE = 50;
/** Seconds of load before the kill, with Redis down, and after its return. */
const BEFORE_S = 3;
const DOWN_S = 8;
const AFTER_S = 4;
/** The key's day cap, USD: what the spend is checked against. */
const DAY_CAP_USD = 0.05;

/** One answer of the run: when it was sent (ms since the start) and its status (0: no answer). */
interface Answer {
  at: number;
  status: number;
}

/** A throwaway redis-server of the scenario's own (the one `npm start` and the tests use), and how to kill it -9. */
async function privateRedis(port: number, dataDir: string): Promise<{ stop(): Promise<void>; kill(): void }> {
  let pid: number | undefined;
  const running = await startRedis({ port, dataDir, persistent: false, onSpawn: (spawned) => (pid = spawned.pid) });
  return { stop: () => running.stop(), kill: () => pid !== undefined && void process.kill(pid, 'SIGKILL') };
}

/** Sends paid chats at PACE for `seconds`, each at its own time (open loop), into `answers`. */
async function paced(url: string, key: string, started: number, seconds: number, answers: Answer[]): Promise<void> {
  const body = chatBody({ stream: false });
  const sent: Array<Promise<void>> = [];
  const end = performance.now() + seconds * 1000;
  for (let next = performance.now(); next < end; next += 1000 / PACE) {
    const wait = next - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const at = Date.now() - started;
    sent.push(
      fetch(`${url}/v1/chat/completions`, { method: 'POST', headers: chatHeaders(key), body, signal: AbortSignal.timeout(10_000) }).then(
        async (res) => void (await res.arrayBuffer(), answers.push({ at, status: res.status })),
        () => void answers.push({ at, status: 0 }),
      ),
    );
  }
  await Promise.all(sent);
}

/**
 * Redis killed under paced load (DESIGN §9): a web with `ADMISSION=leased` and
 * `LEDGER_ACK=local` on a redis-server of its own takes paid chats at PACE req/s on a key with
 * a day cap; the server is killed (SIGKILL), comes back empty DOWN_S later, and the load goes
 * on. Reported: how long paid service went on after the kill (on the slices the web held),
 * what was answered while Redis was down, and the key's spend against its cap once it is back.
 * With `ADMISSION=exact` every paid request fails from the kill on: 0 s.
 */
export async function redisKillScenario(ctx: ScenarioContext): Promise<ScenarioOutput> {
  const { stack } = ctx;
  const port = await findFreePort();
  const redisDir = path.join(stack.logDir, 'redis-rkill');
  let redis = await privateRedis(port, redisDir);
  const side = await startSideWeb(ctx, 'rkill', { LEDGER_ACK: 'local', ADMISSION: 'leased', REDIS_URL: `redis://127.0.0.1:${port}`, CHARGE_SPOOL_DIR: path.join(stack.logDir, 'spool-rkill') });
  try {
    await waitHttpReady(`${side.url}/readyz`, side.proc, 90_000);
    const account = await seedBench(side.url, stack.adminToken, `${stack.runId}-rkill`);
    await admin(side.url, stack.adminToken, 'PATCH', `/v1/admin/keys/${account.keyId}`, { limits: { spend_cap_usd: { day: DAY_CAP_USD } } });
    const answers: Answer[] = [];
    const started = Date.now();
    const load = paced(side.url, account.key, started, BEFORE_S + DOWN_S + AFTER_S, answers);
    await new Promise((r) => setTimeout(r, BEFORE_S * 1000));
    const killedAt = Date.now() - started;
    redis.kill();
    await redis.stop();
    await new Promise((r) => setTimeout(r, DOWN_S * 1000));
    const backAt = Date.now() - started;
    redis = await privateRedis(port, redisDir);
    await load;
    const down = answers.filter((a) => a.at >= killedAt && a.at < backAt).sort((x, y) => x.at - y.at);
    const firstRefusal = down.find((a) => a.status !== 200);
    const servedMs = (firstRefusal?.at ?? backAt) - killedAt;
    const ok = down.filter((a) => a.status === 200).length;
    const refused = down.filter((a) => a.status === 503).length;
    const other = down.length - ok - refused;
    const key = await fetch(`${side.url}/v1/key`, { headers: chatHeaders(account.key) }).then((r) => r.json() as Promise<{ data?: { usage?: { day_usd?: number } } }>);
    const spent = key.data?.usage?.day_usd ?? null;
    ctx.log(`redis kill: paid service ${servedMs} ms after the kill; while down ${ok} answered, ${refused} refused (503), ${other} other; day spend ${spent} of ${DAY_CAP_USD} USD`);
    const row: Measurement = {
      id: 'redis-kill-served',
      scenario: `paid chat served after Redis kill -9 (leased, local, ${PACE} req/s paced)`,
      unit: 's',
      floor: null,
      farebox: Math.round(servedMs / 100) / 10,
      portkey: null,
      portkeyNote: NO_EQUIVALENT,
      note: `while Redis was down (${DOWN_S} s): ${ok} answered 200, ${refused} answered 503 + Retry-After, ${other} other; the key's day spend afterwards ${spent} USD of its ${DAY_CAP_USD} USD cap (exact admission: 0 s, every paid request 503)`,
      ...(spent !== null && spent > DAY_CAP_USD ? { valid: false } : {}),
      steal: null,
    };
    return { rows: [row], details: { killedAt, backAt, servedMs, ok, refused, other, spent, cap: DAY_CAP_USD } };
  } finally {
    await stack.group.stop(side.proc.name);
    await redis.stop().catch(() => undefined);
    await dropBenchData(stack.services, side.env.MONGODB_DB ?? '', side.env.REDIS_PREFIX ?? '').catch(() => undefined);
  }
}
