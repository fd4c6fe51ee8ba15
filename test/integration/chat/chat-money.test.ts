import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, testEnv, type TestGateway } from '../../helpers/test-gateway.js';
import { chat, fundedKey, streamChat } from './chat-client.js';

const TOTAL = 200;
/** In flight at once; enough to interleave settles in shared ledger batches on two cores. */
const PARALLEL = 40;
const TOPUP_USD = 5;

let gw: TestGateway;

beforeAll(async () => {
  gw = await startTestGateway({ env: testEnv({ LOG_LEVEL: 'warn' }) });
});
afterAll(async () => gw?.close());

/** USD as the JSON number clients see → nano-USD (exact: at most 9 decimals). */
const nano = (usd: number): bigint => BigInt(Math.round(usd * 1e9));

interface Outcome {
  requestId: string;
  /** Cost the client saw in usage; undefined for streams it abandoned. */
  seenCost: bigint | undefined;
}

async function one(url: string, raw: string, i: number): Promise<Outcome> {
  const text = `request ${i} says hello to the money test`;
  if (i % 3 === 0) {
    const res = await chat(url, raw, { model: 'local/echo', messages: [{ role: 'user', content: text }], n: 1 + (i % 2) });
    if (res.status !== 200) throw new Error(`chat ${res.status} ${JSON.stringify(res.body)}`);
    return { requestId: res.headers.get('x-service-request-id') ?? '', seenCost: nano(res.body.usage.cost as number) };
  }
  const aborted = i % 3 === 2;
  const markers = aborted ? '[[local:chunks=6]] [[local:slow=15]]' : '[[local:chunks=5]]';
  const result = await streamChat(url, raw, { model: 'local/echo', messages: [{ role: 'user', content: `${text} ${markers}` }] }, aborted ? { abortAfter: 3 } : {});
  if (result.status !== 200) throw new Error(`stream ${result.status} ${result.text}`);
  const requestId = result.headers.get('x-service-request-id') ?? '';
  if (aborted) return { requestId, seenCost: undefined };
  if (!result.done) throw new Error('stream without [DONE]');
  return { requestId, seenCost: nano(result.events.at(-1)?.usage.cost as number) };
}

async function runAll(url: string, raw: string): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < TOTAL) {
      const i = next;
      next += 1;
      outcomes.push(await one(url, raw, i));
    }
  };
  await Promise.all(Array.from({ length: PARALLEL }, worker));
  return outcomes;
}

describe('chat money invariants under concurrency', () => {
  it('charges every request exactly once: ledger = costs clients saw + aborted streams, balance moved by the ledger sum', async () => {
    const key = await fundedKey(gw.url, TOPUP_USD);
    const outcomes = await runAll(gw.url, key.raw);
    expect(outcomes).toHaveLength(TOTAL);
    const ids = outcomes.map((o) => o.requestId);
    expect(new Set(ids).size).toBe(TOTAL);

    // Abandoned streams are settled right after the disconnect is noticed; wait for them.
    const ledger = gw.deps.c.ledger;
    let entries = await ledger.find({ account_id: key.accountId, kind: 'charge' }).toArray();
    for (let tries = 0; entries.length < TOTAL && tries < 100; tries += 1) {
      await new Promise((r) => setTimeout(r, 50));
      entries = await ledger.find({ account_id: key.accountId, kind: 'charge' }).toArray();
    }
    expect(entries).toHaveLength(TOTAL);
    const byId = new Map(entries.map((e) => [e._id, e]));
    expect([...byId.keys()].sort()).toEqual([...ids].sort());

    let seen = 0n;
    let abortedBilled = 0n;
    for (const o of outcomes) {
      const entry = byId.get(o.requestId);
      if (entry === undefined) throw new Error(`no ledger entry for ${o.requestId}`);
      if (o.seenCost === undefined) {
        expect(entry.cost).toBeGreaterThan(0n);
        abortedBilled += entry.cost;
      } else {
        expect(entry.cost).toBe(o.seenCost);
        seen += o.seenCost;
      }
    }
    const ledgerSum = entries.reduce((sum, e) => sum + e.charged, 0n);
    expect(entries.every((e) => e.absorbed === 0n && e.charged === e.cost)).toBe(true);
    expect(ledgerSum).toBe(seen + abortedBilled);

    const account = await gw.deps.c.accounts.findOne({ _id: key.accountId });
    expect(account?.balance).toBe(nano(TOPUP_USD) - ledgerSum);
  });
});
