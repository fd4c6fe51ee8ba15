import { describe, expect, it } from 'vitest';
import { buildReceipt } from '../../../src/ledger/receipts/build-receipt.js';
import { receiptFacts, storedReceipt, type ReceiptRecord } from '../../../src/ledger/records/record-receipt.js';

const lines = [
  { component: 'prompt', units: 12, unit_price_usd: '0.000001', amount_usd: '0.000012' },
  { component: 'completion', units: 8, unit_price_usd: '0.000002', amount_usd: '0.000016' },
];
const charge = { cost: 28_000n, charged: 20_000n, absorbed: 8_000n, duplicate: false, prevHash: 'a'.repeat(64), hash: 'b'.repeat(64), lines, priceVersion: 'pv-charge' };
const settledAt = new Date('2026-01-02T03:04:05.678Z');

function record(over: Partial<ReceiptRecord> = {}): ReceiptRecord {
  return { _id: 'req_1', account_id: 'acc_1', key_id: 'key_1', endpoint: '/v1/chat/completions', model: 'vendor/model', provider: 'openai', status: 200, cost: 28_000n, cost_details: lines, price_version: 'pv-charge', ...over };
}

/** The receipt text as it was stored in records before they kept only the facts. */
function builtAtWrite(over: { status?: number; failure?: string; modelId?: string; charge?: typeof charge | Omit<typeof charge, 'lines' | 'priceVersion'> } = {}): string {
  return JSON.stringify(
    buildReceipt({
      requestId: 'req_1', accountId: 'acc_1', keyId: 'key_1', model: { id: over.modelId ?? 'vendor/model', priceVersion: 'pv-model' }, endpoint: '/v1/chat/completions', provider: 'openai',
      charge: over.charge ?? charge, tokenSource: 'counted', status: over.status ?? 200, failure: over.failure, settledAt,
    }),
  );
}

describe('a receipt built from its record', () => {
  it('is the text the receipt had when it was built at write time, without repeating the lines', () => {
    const base = record();
    const facts = receiptFacts(base, { model: { id: 'vendor/model', priceVersion: 'pv-model' }, charge, tokenSource: 'counted', failure: undefined, settledAt });
    expect(facts).not.toHaveProperty('cost_details');
    expect(facts).not.toHaveProperty('price_version');
    expect(storedReceipt({ ...base, receipt_facts: facts })).toBe(builtAtWrite());
  });

  it('keeps what differs from the record: an alias-resolved id, a price version of the model, a stream failure', () => {
    const { lines: _l, priceVersion: _p, ...bare } = charge;
    const base = record({ model: 'alias-name', status: 200, cost_details: undefined, price_version: undefined });
    const facts = receiptFacts(base, { model: { id: 'vendor/model', priceVersion: 'pv-model' }, charge: bare, tokenSource: 'counted', failure: 'upstream_error', settledAt });
    expect(facts).toMatchObject({ model: 'vendor/model', price_version: 'pv-model', failure: 'upstream_error' });
    expect(storedReceipt({ ...base, receipt_facts: facts })).toBe(builtAtWrite({ failure: 'upstream_error', charge: bare }));
  });

  it('is the stored text for records written before, and nothing for a request not charged', () => {
    expect(storedReceipt(record({ receipt: '{"version":1}' }))).toBe('{"version":1}');
    expect(storedReceipt(record())).toBeUndefined();
  });
});
