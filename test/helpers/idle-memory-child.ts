import pino from 'pino';
import { returnIdleMemory } from '../../src/platform/runtime/index.js';

/**
 * A process that takes one burst of allocation and goes quiet, with the idle-memory return
 * looking every 500 ms and waiting for 1 s without new work. Its argument: `on` (the burst
 * counts as no work), `off` (no return at all) or `working` (a new piece of work starts every
 * 100 ms, as light traffic would). It prints its RSS once the burst is over (`BURST <bytes>`)
 * and again after five quiet seconds (`QUIET <bytes>`); the log line of a return goes to
 * stdout too.
 */
const log = pino({ base: null });
const mode = process.argv[2];
let started = 0;
const work = mode === 'working' ? setInterval(() => (started += 1), 100) : undefined;
const watch = mode === 'off' ? undefined : returnIdleMemory(log, { activity: () => started, everyMs: 500, quietMs: 1_000 });

// Objects that live a little while, as a busy server's requests do, so the old space grows too.
let live: object[] = [];
const end = performance.now() + 2_000;
while (performance.now() < end) {
  for (let i = 0; i < 1_000; i++) live.push({ text: `${'x'.repeat(64)}${i}`, list: [i, i + 1, i + 2], inner: { i } });
  if (live.length > 200_000) live = live.slice(100_000);
  await new Promise((resolve) => setImmediate(resolve));
}
live = [];
process.stdout.write(`BURST ${process.memoryUsage.rss()}\n`);
await new Promise((resolve) => setTimeout(resolve, 5_000));
process.stdout.write(`QUIET ${process.memoryUsage.rss()}\n`);
watch?.stop();
clearInterval(work);
