import { describe, expect, it } from 'vitest';
import { connectMongo } from '../../../src/platform/db/mongo.js';
import { startEntry, webReady } from './entry-process.js';
import { openStream } from './in-flight.js';
import { startSigtermStack } from './sigterm-stack.js';
import { waitFor } from '../../helpers/wait-for.js';

const PLATFORM_KILL_MS = 30_000;

/**
 * The charge spool (DESIGN §5): charges for work delivered while MongoDB is unreachable wait in
 * a durable spool; a web told to stop in that state spools what it holds and says so, and the
 * charges commit once MongoDB is back, each exactly once.
 */
describe('no charge is lost when a web stops while MongoDB is gone', () => {
  it('streams delivered during the outage are charged once MongoDB returns', async () => {
    const stack = await startSigtermStack({ restartableMongo: true });
    try {
      const streams = await Promise.all([0, 1, 2].map(() => openStream(stack.web.url, stack.rawKey, 'stall/finite')));
      await stack.mongo.stop();
      // The upstream ends each stream a few seconds in: all of them deliver during the outage.
      const ends = await Promise.all(streams.map((s) => s.ended));
      expect(ends).toEqual(['complete', 'complete', 'complete']);

      const web = await stack.web.terminate(PLATFORM_KILL_MS);
      expect(web.exitedAfterMs, stack.web.output().slice(-3_000)).toBeDefined();
      expect(web.exitLog?.left_undone['charges not committed']).toBeUndefined();

      await stack.mongo.start?.();
      // A web started after the outage commits whatever the spool holds.
      const next = await startEntry('src/http/server.ts', stack.env, webReady);
      const mongo = await connectMongo(stack.mongo.url, stack.env.MONGODB_DB ?? '');
      try {
        const ids = streams.map((s) => s.requestId);
        await waitFor('every delivered stream to be charged', async () => (await mongo.db.collection('ledger').countDocuments({ _id: { $in: ids } as never })) === ids.length, { timeoutMs: 60_000 });
        const entries = await mongo.db.collection('ledger').find({ _id: { $in: ids } as never }).toArray();
        expect(entries.map((e) => String(e._id)).sort()).toEqual([...ids].sort());
      } finally {
        await mongo.close();
        await next.kill();
      }
    } finally {
      await stack.dispose();
    }
  }, 300_000);
});
