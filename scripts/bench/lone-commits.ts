import type { ChargeRequest, LedgerWriter } from '../../src/ledger/index.js';
import type { BenchAccount } from './bench-seed.js';

/**
 * Commits `count` charges one at a time through `writer` (each awaited before the next), ids
 * `${prefix}${i}`: the durable commit a non-streamed answer waits for when nothing else is
 * charged. Returns each commit's duration (ms).
 */
export async function loneCommits(writer: LedgerWriter, account: BenchAccount, prefix: string, count: number): Promise<number[]> {
  const durations: number[] = [];
  for (let i = 0; i < count; i++) {
    const request: ChargeRequest = { requestId: `${prefix}${i}`, accountId: account.accountId, keyId: account.keyId, model: 'bench/fast', cost: 1_000n, units: { prompt: 12, completion: 8 }, at: new Date() };
    const at = performance.now();
    await writer.charge(request);
    durations.push(performance.now() - at);
  }
  return durations;
}
