import { collections } from '../../src/store/index.js';
import { connectMongo } from '../../src/platform/db/index.js';
import { toCatalogModel } from '../../src/catalog/index.js';
import { buildReceipt, type ChargeRequest, generateSigningKey, LedgerWriter, ReceiptSigner } from '../../src/ledger/index.js';
import { createLogger } from '../../src/platform/log/index.js';
import { NO_EQUIVALENT, TARGETS } from './bench-targets.js';
import { summarize } from './latency-stats.js';
import { loneCommits } from './lone-commits.js';
import { GATEWAY_CORE, LOAD_CORE } from './bench-stack.js';
import { pinProcess } from './proc-stats.js';
import type { Measurement } from './report-rows.js';
import { measured, withCpu, type ScenarioContext, type ScenarioOutput } from './scenario-context.js';

/**
 * Charges through the group-commit LedgerWriter straight against the bench database: every
 * charge is its own awaited call, resolved only once its batch's majority, journaled
 * transaction committed, each entry linked into its account's hash chain (DESIGN §9: ≥ 10,000
 * charges/s). A second burst also builds and signs each charge's receipt, as the web process
 * does when it hands a receipt out, so the signatures' cost shows on its own row. The runner moves to the gateway's core for this (the web is
 * idle), since in production the writer runs in the web process.
 */
export async function ledgerScenario(ctx: ScenarioContext): Promise<ScenarioOutput> {
  const { stack } = ctx;
  const mongo = await connectMongo(stack.mongoUri, stack.dbName);
  const c = collections(mongo.db);
  const writer = new LedgerWriter(mongo.client, c, createLogger('silent'));
  const modelDoc = await c.models.findOne({ _id: 'bench/fast' });
  if (!modelDoc) throw new Error('bench/fast is not in the catalog');
  const model = toCatalogModel(modelDoc);
  const signer = new ReceiptSigner(generateSigningKey());
  const units = { prompt: 12, completion: 8 };
  const charge = async (id: string, signed: boolean): Promise<unknown> => {
    const request: ChargeRequest = { requestId: id, accountId: stack.account.accountId, keyId: stack.account.keyId, model: 'bench/fast', cost: 1_000n, units, at: new Date() };
    const outcome = await writer.charge(request);
    if (!signed) return outcome;
    const facts = { requestId: id, accountId: request.accountId, keyId: request.keyId, model, endpoint: '/v1/chat/completions', provider: 'openai' };
    return signer.sign(buildReceipt({ ...facts, charge: outcome, tokenSource: 'upstream', status: 200, failure: undefined, settledAt: request.at }));
  };
  const prefix = `bench-ledger-${stack.runId}-`;
  const count = ctx.plan.ledgerCharges;
  let attempt = 0;
  const burst = (label: string, signed: boolean) =>
    measured(ctx, label, async () => {
      const batch = `${prefix}${attempt++}-`;
      const started = performance.now();
      await withCpu(ctx, `${label} ${count} charges`, () => Promise.all(Array.from({ length: count }, (_, i) => charge(`${batch}${i}`, signed))));
      const seconds = (performance.now() - started) / 1000;
      const stored = await c.ledger.countDocuments({ _id: { $regex: `^${batch}\\d` } });
      return { seconds, perSecond: Math.round(count / seconds), stored };
    });
  if (stack.pinned) pinProcess(process.pid, GATEWAY_CORE);
  try {
    await Promise.all(Array.from({ length: 2_000 }, (_, i) => charge(`${prefix}warm-${i}`, true)));
    const { value: chained, steal } = await burst('ledger charges/s', false);
    ctx.log(`ledger: ${count} charges in ${chained.seconds.toFixed(2)} s = ${chained.perSecond}/s; ${chained.stored} entries stored`);
    const { value: signed, steal: signedSteal } = await burst('ledger charges/s with receipts', true);
    ctx.log(`ledger: ${count} charges with signed receipts in ${signed.seconds.toFixed(2)} s = ${signed.perSecond}/s`);
    // One charge at a time: the durable commit every non-streamed answer waits for, whose p99
    // is part of the p99 target at 500 req/s.
    const { value: commit, steal: loneSteal } = await measured(ctx, 'lone charge commit', async () => summarize(await loneCommits(writer, stack.account, `${prefix}single-${attempt++}-`, ctx.plan.loneCommits)));
    ctx.log(`ledger: a lone charge commits in p50 ${commit.p50} ms, p99 ${commit.p99} ms (${commit.count} charges)`);
    const lone = { unit: 'ms', floor: null, portkey: null, portkeyNote: NO_EQUIVALENT, steal: loneSteal };
    const stored = (b: { stored: number }) => (b.stored === count ? {} : { valid: false, note: `${b.stored} of ${count} charges stored` });
    const rows: Measurement[] = [
      { id: 'ledger-charges-per-second', scenario: 'ledger charges/s (durable, chained)', unit: 'charges/s', floor: null, farebox: chained.perSecond, portkey: null, portkeyNote: NO_EQUIVALENT, target: TARGETS.ledgerChargesPerSecond, ...stored(chained), steal },
      { id: 'ledger-signed-charges-per-second', scenario: 'ledger charges/s with signed receipts', unit: 'charges/s', floor: null, farebox: signed.perSecond, portkey: null, portkeyNote: NO_EQUIVALENT, ...stored(signed), steal: signedSteal },
      { id: 'ledger-lone-p50', scenario: 'ledger lone charge commit p50', farebox: commit.p50, ...lone },
      { id: 'ledger-lone-p99', scenario: 'ledger lone charge commit p99', farebox: commit.p99, ...lone },
    ];
    return { rows, details: { charges: count, ...chained, signed, loneChargeCommit: commit } };
  } finally {
    if (stack.pinned) pinProcess(process.pid, LOAD_CORE);
    await writer.drain();
    await mongo.close();
  }
}
