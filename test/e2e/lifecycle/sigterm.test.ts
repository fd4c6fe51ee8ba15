import { afterAll, describe, it } from 'vitest';
import { openStream, sendImage } from './in-flight.js';
import { startSigtermStack, type SigtermStack } from './sigterm-stack.js';
import { waitFor } from '../../helpers/wait-for.js';

/** What platforms allow between SIGTERM and SIGKILL: the contract, not a speed figure. */
const PLATFORM_KILL_MS = 30_000;

interface Scenario {
  name: string;
  /** Whether Redis still answers when the processes are told to stop. */
  redisUp: boolean;
  breakStores(stack: SigtermStack): Promise<void>;
}

const scenarios: Scenario[] = [
  { name: 'Redis is gone', redisUp: false, breakStores: (s) => s.redis.kill() },
  { name: 'MongoDB is gone', redisUp: true, breakStores: (s) => s.mongo.stop() },
  {
    name: 'both are gone (Redis half-open, MongoDB stopped)',
    redisUp: false,
    breakStores: async (s) => {
      await s.mongo.stop();
      s.redis.freeze();
    },
  },
];

const exitTimes: string[] = [];
afterAll(() => console.log(`[sigterm] exit times after SIGTERM:\n${exitTimes.join('\n')}`));

// Each scenario has stores and processes of its own, and spends most of its time waiting
// for shutdown timeouts on the wall clock: side by side, the three take the time of one.
describe('SIGTERM ends web and worker within 30 s whatever state the stores are in', () => {
  it.for(scenarios)('while $name, with streams and a job in flight', { concurrent: true, timeout: 300_000 }, async (scenario, { expect }) => {
    const stack = await startSigtermStack();
    try {
      const streams = await Promise.all([openStream(stack.web.url, stack.rawKey), openStream(stack.web.url, stack.rawKey)]);
      const image = sendImage(stack.web.url, stack.rawKey);
      await waitFor('the worker to run the image job', () => stack.upstream.imageRequests() === 1, { timeoutMs: 60_000 });
      await scenario.breakStores(stack);

      // The worker first: stopped together, the web's cut request would cancel the job before
      // the worker had to hand it back, and that path would go untested.
      const worker = await stack.worker.terminate(PLATFORM_KILL_MS);
      const web = await stack.web.terminate(PLATFORM_KILL_MS);
      exitTimes.push(`${scenario.name}: web ${web.exitedAfterMs ?? 'killed'} ms (${web.exitLog?.msg}), worker ${worker.exitedAfterMs ?? 'killed'} ms (${worker.exitLog?.msg})`);
      const context = `web exit: ${JSON.stringify(web.exitLog)}\nworker exit: ${JSON.stringify(worker.exitLog)}\n${stack.web.output().slice(-3_000)}\n${stack.worker.output().slice(-3_000)}`;
      // Undefined means the deadline passed and the test had to SIGKILL the process.
      expect(web.exitedAfterMs, context).toBeDefined();
      expect(worker.exitedAfterMs, context).toBeDefined();

      // The web's exit log states exactly what its clients lost.
      const streamEnds = await Promise.all(streams.map((s) => s.ended));
      const imageEnd = await image;
      expect(streamEnds, context).toEqual(['cut', 'cut']);
      expect(imageEnd, context).toBe('cut');
      expect(web.exitLog?.msg, context).toMatch(/^shutdown complete: 2 streams cut, 1 requests cut/);
      expect(web.exitLog?.left_undone, context).toMatchObject({ 'streams cut': 2, 'requests cut': 1 });

      // The worker hands its running job back: at once when Redis answers, else by stall recovery.
      const undone = worker.exitLog?.left_undone ?? {};
      if (scenario.redisUp) expect(undone, context).toMatchObject({ 'jobs returned to the queue': 1 });
      else expect(undone, context).toMatchObject({ 'jobs left to stall recovery': 1 });
      expect((undone['jobs returned to the queue'] ?? 0) + (undone['jobs left to stall recovery'] ?? 0), context).toBe(1);
    } finally {
      await stack.dispose();
    }
  });
});
