import type { Deps } from '../deps.js';
import type { ShutdownStep } from './shutdown.js';

/** Per-step bounds for closing the stores; together well inside the 30 s platforms allow. */
export const STORE_STEP_MS = { ledger: 5_000, redis: 1_000, mongo: 2_000 } as const;

/** What the ledger may say about a drain that had to spool charges instead of committing them. */
function spooledCount(outcome: unknown): number {
  if (typeof outcome !== 'object' || outcome === null || !('spooled' in outcome)) return 0;
  const spooled = (outcome as { spooled: unknown }).spooled;
  return typeof spooled === 'number' ? spooled : 0;
}

/**
 * The stores' part of a shutdown, in dependency order: background work stops, pending charges
 * are committed or spooled (a drain that hangs on an unreachable MongoDB is cut off and the
 * charges it still held are counted), then Redis and MongoDB are closed, each bounded.
 */
export function storeShutdownSteps(deps: Pick<Deps, 'catalog' | 'admission' | 'ledger' | 'bus' | 'redis' | 'mongo'>): ShutdownStep[] {
  let failedBefore = deps.ledger.failedCharges;
  return [
    {
      name: 'stop background work',
      timeoutMs: 500,
      run: async () => {
        deps.catalog.stop();
        deps.admission.close();
      },
    },
    {
      name: 'drain charges',
      timeoutMs: STORE_STEP_MS.ledger,
      run: async (report) => {
        failedBefore = deps.ledger.failedCharges;
        const outcome = await deps.ledger.drain();
        report.note('charges spooled', spooledCount(outcome));
        report.note('charges not committed', deps.ledger.failedCharges - failedBefore);
      },
      // Cut off by an unreachable or half-open MongoDB: what it still held is not durable.
      onCut: (report) => report.note('charges not committed', deps.ledger.pending + deps.ledger.failedCharges - failedBefore),
    },
    {
      name: 'close redis',
      timeoutMs: STORE_STEP_MS.redis,
      run: async () => {
        deps.redis.disconnect();
        await deps.bus.close();
      },
    },
    {
      name: 'close mongodb',
      timeoutMs: STORE_STEP_MS.mongo,
      run: () => deps.mongo.close(),
    },
  ];
}

/** Time kept back from the grace period for the steps after a drain (queue and stores). */
export const STORE_CLOSE_RESERVE_MS = 500 + STORE_STEP_MS.ledger + STORE_STEP_MS.redis + STORE_STEP_MS.mongo + 4_000;
