import { collections } from '../../src/db/collections.js';
import { connectMongo } from '../../src/db/mongo.js';
import { LedgerWriter, type ChargeRequest } from '../../src/ledger/ledger-writer.js';
import { createLogger } from '../../src/log/logger.js';
import { absoluteRow } from './bench-report.js';
import { summarize } from './latency-stats.js';
import { GATEWAY_CORE, LOAD_CORE } from './bench-stack.js';
import { pinProcess } from './proc-stats.js';
import { withCpu, type ScenarioContext, type ScenarioOutput } from './scenario-context.js';

/**
 * Charges through the group-commit LedgerWriter straight against the bench database: every
 * charge is its own awaited call, resolved only once its batch's majority, journaled
 * transaction committed (DESIGN §9: ≥ 10,000 charges/s). The runner moves to the gateway's
 * core for this (the web is idle), since in production the writer runs in the web process.
 */
export async function ledgerScenario(ctx: ScenarioContext): Promise<ScenarioOutput> {
  const { stack } = ctx;
  const mongo = await connectMongo(stack.mongoUri, stack.dbName);
  const c = collections(mongo.db);
  const writer = new LedgerWriter(mongo.client, c, createLogger('silent'));
  const charge = (id: string): Promise<unknown> => {
    const request: ChargeRequest = {
      requestId: id,
      accountId: stack.account.accountId,
      keyId: stack.account.keyId,
      model: 'bench/fast',
      cost: 1_000n,
      units: { prompt: 12, completion: 8 },
      at: new Date(),
    };
    return writer.charge(request);
  };
  const prefix = `bench-ledger-${stack.runId}-`;
  if (stack.pinned) pinProcess(process.pid, GATEWAY_CORE);
  try {
    await Promise.all(Array.from({ length: 2_000 }, (_, i) => charge(`${prefix}warm-${i}`)));
    const count = ctx.plan.ledgerCharges;
    const started = performance.now();
    await withCpu(ctx, `ledger ${count} charges`, () => Promise.all(Array.from({ length: count }, (_, i) => charge(`${prefix}${i}`))));
    const seconds = (performance.now() - started) / 1000;
    const perSecond = Math.round(count / seconds);
    const stored = await c.ledger.countDocuments({ _id: { $regex: `^${prefix}\\d` } });
    ctx.log(`ledger: ${count} charges in ${seconds.toFixed(2)} s = ${perSecond}/s; ${stored} entries stored`);
    // One charge at a time: the durable commit every non-streamed answer waits for.
    const single: number[] = [];
    for (let i = 0; i < 50; i++) {
      const at = performance.now();
      await charge(`${prefix}single-${i}`);
      single.push(performance.now() - at);
    }
    const commit = summarize(single);
    ctx.log(`ledger: a lone charge commits in p50 ${commit.p50} ms, p99 ${commit.p99} ms`);
    const rows = [
      absoluteRow('ledger charges/s (durable)', 'charges/s', perSecond, stored === count ? perSecond >= 10_000 : false, '≥ 10,000'),
      absoluteRow('ledger lone charge commit p50', 'ms', commit.p50, null, '—'),
    ];
    return { rows, details: { charges: count, seconds, perSecond, stored, loneChargeCommit: commit } };
  } finally {
    if (stack.pinned) pinProcess(process.pid, LOAD_CORE);
    await writer.drain();
    await mongo.close();
  }
}
