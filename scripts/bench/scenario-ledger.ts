import { collections } from '../../src/db/collections.js';
import { connectMongo } from '../../src/db/mongo.js';
import { LedgerWriter, type ChargeRequest } from '../../src/ledger/ledger-writer.js';
import { createLogger } from '../../src/log/logger.js';
import { NO_EQUIVALENT, TARGETS } from './bench-targets.js';
import { summarize } from './latency-stats.js';
import { GATEWAY_CORE, LOAD_CORE } from './bench-stack.js';
import { pinProcess } from './proc-stats.js';
import type { Measurement } from './report-rows.js';
import { measured, withCpu, type ScenarioContext, type ScenarioOutput } from './scenario-context.js';

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
    let attempt = 0;
    const { value: burst, steal } = await measured(ctx, 'ledger charges/s', async () => {
      const batch = `${prefix}${attempt++}-`;
      const started = performance.now();
      await withCpu(ctx, `ledger ${count} charges`, () => Promise.all(Array.from({ length: count }, (_, i) => charge(`${batch}${i}`))));
      const seconds = (performance.now() - started) / 1000;
      const stored = await c.ledger.countDocuments({ _id: { $regex: `^${batch}\\d` } });
      return { seconds, perSecond: Math.round(count / seconds), stored };
    });
    ctx.log(`ledger: ${count} charges in ${burst.seconds.toFixed(2)} s = ${burst.perSecond}/s; ${burst.stored} entries stored`);
    // One charge at a time: the durable commit every non-streamed answer waits for, whose p99
    // is part of the p99 target at 500 req/s.
    const { value: commit, steal: loneSteal } = await measured(ctx, 'lone charge commit', async () => {
      const single: number[] = [];
      for (let i = 0; i < ctx.plan.loneCommits; i++) {
        const at = performance.now();
        await charge(`${prefix}single-${attempt}-${i}`);
        single.push(performance.now() - at);
      }
      attempt += 1;
      return summarize(single);
    });
    ctx.log(`ledger: a lone charge commits in p50 ${commit.p50} ms, p99 ${commit.p99} ms (${commit.count} charges)`);
    const lone = { unit: 'ms', floor: null, portkey: null, portkeyNote: NO_EQUIVALENT, steal: loneSteal };
    const rows: Measurement[] = [
      { id: 'ledger-charges-per-second', scenario: 'ledger charges/s (durable)', unit: 'charges/s', floor: null, farebox: burst.perSecond, portkey: null, portkeyNote: NO_EQUIVALENT, target: TARGETS.ledgerChargesPerSecond, ...(burst.stored === count ? {} : { valid: false, note: `${burst.stored} of ${count} charges stored` }), steal },
      { id: 'ledger-lone-p50', scenario: 'ledger lone charge commit p50', farebox: commit.p50, ...lone },
      { id: 'ledger-lone-p99', scenario: 'ledger lone charge commit p99', farebox: commit.p99, ...lone },
    ];
    return { rows, details: { charges: count, ...burst, loneChargeCommit: commit } };
  } finally {
    if (stack.pinned) pinProcess(process.pid, LOAD_CORE);
    await writer.drain();
    await mongo.close();
  }
}
