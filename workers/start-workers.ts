import type { Deps } from '../src/deps.js';

/** The running BullMQ workers of this process. */
export interface RunningWorkers {
  names: string[];
  close(): Promise<void>;
}

/** Starts one BullMQ worker per queue (`images`, `ocr`). */
export async function startWorkers(_deps: Deps): Promise<RunningWorkers> {
  return { names: [], close: async () => undefined };
}
