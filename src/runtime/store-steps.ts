import type { Deps } from '../deps.js';
import type { ShutdownStep } from './shutdown.js';

/** Per-step bounds for closing the stores; together well inside the 30 s platforms allow. */
export const STORE_STEP_MS = { ledger: 5_000, records: 1_000, redis: 1_000, mongo: 2_000 } as const;

/**
 * The stores' part of a shutdown, in dependency order: background work stops, pending charges
 * are committed or spooled (a drain that hangs on an unreachable MongoDB is cut off and the
 * charges it still held are counted), then Redis and MongoDB are closed, each bounded.
 */
export function storeShutdownSteps(deps: Pick<Deps, 'catalog' | 'admission' | 'ledger' | 'requests' | 'bus' | 'redis' | 'mongo'>): ShutdownStep[] {
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
        const { spooled } = await deps.ledger.drain();
        report.note('charges spooled', spooled);
      },
      // Cut off by a half-open MongoDB: what it still held is neither committed nor spooled.
      onCut: (report) => report.note('charges not committed', deps.ledger.committing),
    },
    {
      name: 'flush request records',
      timeoutMs: STORE_STEP_MS.records,
      run: () => deps.requests.drain(),
      // Records are not money: what a slow MongoDB still held is only counted.
      onCut: (report) => report.note('request records not written', deps.requests.pending),
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
export const STORE_CLOSE_RESERVE_MS = 500 + STORE_STEP_MS.ledger + STORE_STEP_MS.records + STORE_STEP_MS.redis + STORE_STEP_MS.mongo + 4_000;
