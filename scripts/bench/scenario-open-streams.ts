import { Agent } from 'node:http';
import { NOT_MEASURED, TARGET_OPEN_STREAMS, TARGETS } from './bench-targets.js';
import type { BenchProcess } from './bench-processes.js';
import { chatBody, chatHeaders, completeStream, timedStream } from './chat-requests.js';
import { sleep } from './latency-stats.js';
import { rssBytes } from './proc-stats.js';
import type { Measurement } from './report-rows.js';
import { measured, withCpu, type ScenarioContext, type ScenarioOutput } from './scenario-context.js';

/** Streams being opened at once (waiting for their first byte). */
const OPENING_AT_ONCE = 200;
/** Longest time allowed to get every stream open, and to see them all end. */
const OPEN_TIMEOUT_MS = 120_000;
const END_TIMEOUT_MS = 60_000;
const MIB = 2 ** 20;

interface HoldResult {
  requested: number;
  /** Most streams open at the same time. */
  peakOpen: number;
  openSeconds: number;
  rssBeforeMiB: number;
  /** Highest RSS of the relaying process while the streams were open. */
  peakRssMiB: number;
  completed: number;
  failed: number;
}

/**
 * Opens `count` streams through `url` (the mock holds each open after its first chunk, sending a
 * chunk every 5 s), samples the relaying process's RSS while they are all open, then releases
 * them at the mock so each ends normally with its usage chunk. Bounded by the timeouts above.
 */
async function holdStreams(ctx: ScenarioContext, url: string, proc: BenchProcess, count: number, billed: boolean): Promise<HoldResult> {
  const agent = new Agent({ keepAlive: false, maxSockets: Number.POSITIVE_INFINITY });
  const body = chatBody({ stream: true, chunks: 2, gapMs: 5_000, hold: true });
  const rssBefore = rssBytes(proc.pid) ?? 0;
  let peakRss = rssBefore;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, rssBytes(proc.pid) ?? 0)), 250);
  let open = 0;
  let peakOpen = 0;
  let completed = 0;
  let failed = 0;
  let opening = 0;
  const started = performance.now();
  const streams: Promise<void>[] = [];
  try {
    for (let i = 0; i < count && performance.now() - started < OPEN_TIMEOUT_MS; i++) {
      while (opening >= OPENING_AT_ONCE) await sleep(2);
      opening += 1;
      let counted = false;
      const opened = (): void => {
        counted = true;
        opening -= 1;
        open += 1;
        peakOpen = Math.max(peakOpen, open);
      };
      const stream = timedStream(agent, url, chatHeaders(ctx.stack.account.key), body, { onFirstByte: opened, keepTail: 400 }).then(
        (timing) => {
          if (timing.status === 200 && completeStream(timing.text, billed)) completed += 1;
          else failed += 1;
        },
        () => void (failed += 1),
      );
      streams.push(stream.finally(() => (counted ? (open -= 1) : (opening -= 1))));
    }
    while (peakOpen < count && failed === 0 && performance.now() - started < OPEN_TIMEOUT_MS) await sleep(50);
    const openSeconds = (performance.now() - started) / 1000;
    await sleep(2_000);
    peakRss = Math.max(peakRss, rssBytes(proc.pid) ?? 0);
    await fetch(`${ctx.stack.mockUrl}/control/release`, { method: 'POST' }).then((res) => res.arrayBuffer());
    await Promise.race([Promise.all(streams), sleep(END_TIMEOUT_MS)]);
    return { requested: count, peakOpen, openSeconds, rssBeforeMiB: rssBefore / MIB, peakRssMiB: peakRss / MIB, completed, failed };
  } finally {
    clearInterval(sampler);
    agent.destroy();
  }
}

/** Many concurrent open streams: web RSS (DESIGN §9: 5,000 streams under 600 MB). */
export async function openStreamsScenario(ctx: ScenarioContext): Promise<ScenarioOutput> {
  const count = Math.min(ctx.plan.openStreams, ctx.stack.openStreamsCap);
  const floorProc = ctx.stack.group.get('floor-proxy');
  const { value, steal } = await measured(ctx, 'open streams', async () => {
    const floor = floorProc ? await withCpu(ctx, `floor ${count} open streams`, () => holdStreams(ctx, ctx.stack.floorUrl, floorProc, count, false)) : undefined;
    const farebox = await withCpu(ctx, `farebox ${count} open streams`, () => holdStreams(ctx, ctx.stack.webUrl, ctx.stack.web, count, true));
    return { floor, farebox };
  });
  const { floor, farebox } = value;
  ctx.log(`open streams: farebox peak ${farebox.peakOpen} open, RSS ${farebox.rssBeforeMiB.toFixed(0)} → ${farebox.peakRssMiB.toFixed(0)} MiB; completed ${farebox.completed}, failed ${farebox.failed}`);
  const allOpen = farebox.peakOpen >= count && farebox.failed === 0;
  const checked = count >= TARGET_OPEN_STREAMS;
  const row: Measurement = {
    id: 'open-streams-rss',
    scenario: `${count} open streams: peak RSS`,
    unit: 'MB',
    floor: floor?.peakRssMiB ?? null,
    farebox: farebox.peakRssMiB,
    portkey: null,
    portkeyNote: NOT_MEASURED,
    ...(checked ? { target: TARGETS.openStreamsRss } : { note: `target (< 600 MB at ${TARGET_OPEN_STREAMS.toLocaleString('en-US')}) not checked at ${count} streams` }),
    ...(allOpen ? {} : { valid: false, note: `${farebox.peakOpen} of ${count} open at once, ${farebox.failed} failed` }),
    steal,
  };
  return { rows: [row], details: { count, floor, farebox } };
}
