import pino from 'pino';
import { returnIdleMemory } from '../../src/platform/runtime/index.js';

/**
 * A process that takes one burst of allocation and goes quiet, with the idle-memory return
 * looking every 500 ms and waiting for 1 s without new work. Its argument: `on` (the burst
 * counts as no work), `off` (no return at all) or `working` (a new piece of work starts every
 * 100 ms, as light traffic would). It prints its RSS once the burst is over (`BURST <bytes>`)
 * and again after five quiet seconds, or in `on` mode once it returned (`QUIET <bytes>`); its log
 * lines go to stdout too.
 */
const mode = process.argv[2];
let returned = false;
// Debug level, so a collection shows in the output of a failing run too.
const log = pino({ base: null, level: 'debug' }, {
  write(line: string) {
    if (line.includes('returned idle memory')) returned = true;
    process.stdout.write(line);
  },
});
let started = 0;
const work = mode === 'working' ? setInterval(() => (started += 1), 100) : undefined;
const watch = mode === 'off' ? undefined : returnIdleMemory(log, { activity: () => started, everyMs: 500, quietMs: 1_000 });

// Objects that live a little while, as a busy server's requests do, so the old space grows too.
// A fixed amount of work, not a fixed time: on a loaded machine a timed burst allocated too
// little to cross the return's threshold.
let live: object[] = [];
for (let batch = 0; batch < 3_000; batch++) {
  for (let i = 0; i < 1_000; i++) live.push({ text: `${'x'.repeat(64)}${i}`, list: [i, i + 1, i + 2], inner: { i } });
  if (live.length > 200_000) live = live.slice(100_000);
  await new Promise((resolve) => setImmediate(resolve));
}
live = [];
process.stdout.write(`BURST ${process.memoryUsage.rss()}\n`);
// Five quiet seconds; `on` waits up to fifteen for its return, as a loaded machine may delay it.
const until = performance.now() + (mode === 'on' ? 15_000 : 5_000);
while (performance.now() < until && !(mode === 'on' && returned)) await new Promise((resolve) => setTimeout(resolve, 250));
process.stdout.write(`QUIET ${process.memoryUsage.rss()}\n`);
watch?.stop();
clearInterval(work);
