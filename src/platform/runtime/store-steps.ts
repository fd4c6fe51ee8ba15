import type { ShutdownStep } from './shutdown.js';

/** The stores a process closes on shutdown, each by the one call it needs. */
export interface ClosableStores {
  readonly jobs?: { close(): Promise<void> };
  readonly catalog: { stop(): void };
  readonly admission: { close(): void; drain(ms: number): Promise<void> };
  readonly ledger: { drain(): Promise<{ spooled: number }>; readonly committing: number };
  readonly requests: { drain(): Promise<void>; readonly pending: number };
  readonly bus: { close(): Promise<void> };
  readonly redis: { disconnect(): void };
  readonly mongo: { close(): Promise<void> };
}

/** Per-step bounds for closing the stores; together well inside the 30 s platforms allow. */
export const STORE_STEP_MS = { jobs: 3_500, slices: 1_000, ledger: 5_000, records: 1_000, redis: 1_000, mongo: 2_000 } as const;

/**
 * The stores' part of a shutdown, in dependency order: the job queue closes, background work stops, pending charges
 * are committed or spooled (a drain that hangs on an unreachable MongoDB is cut off and the
 * charges it still held are counted), then Redis and MongoDB are closed, each bounded.
 */
export function storeShutdownSteps(deps: ClosableStores): ShutdownStep[] {
  const { jobs } = deps;
  return [
    ...(jobs === undefined ? [] : [{ name: 'close job queue', timeoutMs: STORE_STEP_MS.jobs, run: () => jobs.close() }]),
    {
      // Slices held by this process (leased admission) go back, after their charges reached Redis.
      name: 'hand back admission slices',
      timeoutMs: STORE_STEP_MS.slices,
      run: () => deps.admission.drain(STORE_STEP_MS.slices - 100),
    },
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

/**
 * Time kept back from the grace period for the steps after a drain: the queue and stores, and
 * half a second each for stopping background work and closing upstream agents.
 */
export const STORE_CLOSE_RESERVE_MS =
  STORE_STEP_MS.jobs + STORE_STEP_MS.slices + 500 + STORE_STEP_MS.ledger + STORE_STEP_MS.records + STORE_STEP_MS.redis + STORE_STEP_MS.mongo + 500;
