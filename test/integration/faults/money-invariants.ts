import { expect } from 'vitest';
import { verifyLedgerChain } from '../../../src/ledger/chain-verify.js';
import type { Collections } from '../../../src/store/collections.js';
import type { JsonResponse } from '../../helpers/admin-client.js';

/** What the ledger says about one account. */
export interface LedgerFigures {
  credits: bigint;
  charged: bigint;
  cost: bigint;
  absorbed: bigint;
  /** Charge entries by request id. */
  charges: Map<string, bigint>;
}

/** Sums an account's ledger. */
export async function ledgerFigures(deps: { readonly c: Collections }, accountId: string): Promise<LedgerFigures> {
  const entries = await deps.c.ledger.find({ account_id: accountId }).toArray();
  const f: LedgerFigures = { credits: 0n, charged: 0n, cost: 0n, absorbed: 0n, charges: new Map() };
  for (const e of entries) {
    f.credits += e.credit;
    f.charged += e.charged;
    f.cost += e.cost;
    f.absorbed += e.absorbed;
    if (e.kind === 'charge') f.charges.set(e._id, e.cost);
  }
  return f;
}

/**
 * How long a charge a client was told about may take to reach MongoDB: under `LEDGER_ACK=local`
 * it waits in a spool for the next drain, and a killed process's spool is adopted once its lock
 * lapses (10 s) by a live process that looks every 5 s.
 */
const DRAIN_WAIT_MS = 30_000;

/** The account's ledger once every reported charge is in it (or the wait is over). */
async function drainedFigures(deps: { readonly c: Collections }, accountId: string, reported: readonly Reported[]): Promise<LedgerFigures> {
  const deadline = Date.now() + DRAIN_WAIT_MS;
  for (;;) {
    const f = await ledgerFigures(deps, accountId);
    if (reported.every((r) => f.charges.has(r.requestId)) || Date.now() > deadline) return f;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A cost a client was told about: the request id and the `usage.cost`, nano-USD. */
export interface Reported {
  requestId: string;
  cost: bigint;
}

/** Costs reported by the metered test route (`/test/charge`) in successful answers. */
export function reportedByTestRoute(responses: readonly JsonResponse[]): Reported[] {
  return responses.filter((r) => r.status === 200).map((r) => ({ requestId: String(r.body.request_id), cost: BigInt(String(r.body.cost)) }));
}

/**
 * The exact money invariants after a fault: balance = credits − charges to the nano; every
 * cost a client saw is in the ledger with that amount; no charge the clients did not see
 * (unless `unreported` allows some); and, given a cap, the key's spend stays within it
 * except what was recorded as absorbed; and the account's ledger is one unbroken hash chain.
 */
export async function expectExactMoney(
  deps: { readonly c: Collections },
  accountId: string,
  reported: readonly Reported[],
  options: { capNano?: bigint; unreported?: number } = {},
): Promise<LedgerFigures> {
  const f = await drainedFigures(deps, accountId, reported);
  const account = await deps.c.accounts.findOne({ _id: accountId });
  expect(account?.balance).toBe(f.credits - f.charged);
  for (const r of reported) expect(f.charges.get(r.requestId), `charge ${r.requestId}`).toBe(r.cost);
  expect(f.charges.size - reported.length).toBeLessThanOrEqual(options.unreported ?? 0);
  if (options.capNano !== undefined) expect(f.cost - f.absorbed).toBeLessThanOrEqual(options.capNano);
  // Whatever the fault, the account's entries still form one unbroken hash chain.
  const chain = await verifyLedgerChain(deps.c, accountId);
  expect(chain.break).toBeNull();
  expect(chain.entries).toBe(await deps.c.ledger.countDocuments({ account_id: accountId }));
  return f;
}
