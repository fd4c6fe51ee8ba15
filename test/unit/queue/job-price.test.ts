import { describe, expect, it } from 'vitest';
import type { BilledUnits } from '../../../src/billing/pricing.js';
import type { SettleDetail } from '../../../src/admission/admission-types.js';
import type { JobQueue } from '../../../src/queue/job-queue.js';
import { imagePrice, ocrPrice } from '../../../src/queue/job-price.js';
import type { ImagesJobResult, JobModel } from '../../../src/queue/job-types.js';
import { runMeteredJob } from '../../../src/queue/metered-job.js';
import type { AdmissionTicket } from '../../../src/admission/admission-types.js';
import type { ChargeOutcome } from '../../../src/ledger/ledger-writer.js';

const route = (pricing: JobModel['pricing']): JobModel => ({ id: 'v/img', kind: 'image', provider: 'p', upstreamModel: 'u', pricing });

describe('job prices', () => {
  it('prices an image per image, with lines that sum to the cost', () => {
    expect(imagePrice(route({ image: '0.002' }), { images: 3, textInputTokens: 0, imageInputTokens: 0, imageOutputTokens: 0 })).toEqual({
      units: { image: 3 }, cost: '6000000', lines: [{ component: 'image', units: 3, unit_price_usd: '0.002', amount_usd: '0.006' }],
    });
  });

  it('prices a token-priced image model by its tokens', () => {
    const price = imagePrice(route({ text_input: '0.000005', image_output: '0.00004' }), { images: 1, textInputTokens: 10, imageInputTokens: 0, imageOutputTokens: 100 });
    expect(price.units).toEqual({ text_input: 10, image_input: 0, image_output: 100 });
    expect(price.cost).toBe(String(10 * 5_000 + 100 * 40_000));
    expect(price.lines.map((l) => l.component)).toEqual(['text_input', 'image_output']);
  });

  it('prices OCR per page processed', () => {
    expect(ocrPrice({ ...route({ page: '0.001' }), kind: 'ocr' }, 4)).toMatchObject({ units: { page: 4 }, cost: '4000000' });
  });
});

it("the web charges the worker's lines as they are, without pricing the units again", async () => {
  const lines = [{ component: 'image', units: 1, unit_price_usd: '0.002', amount_usd: '0.002' }];
  const result: ImagesJobResult = { images: [], usage: { images: 1, textInputTokens: 0, imageInputTokens: 0, imageOutputTokens: 0 }, units: { image: 1 }, cost: '2000000', lines };
  const jobs = { run: async () => result, discard: async () => undefined } as unknown as JobQueue;
  const settled: Array<{ cost: bigint; units: BilledUnits; detail: SettleDetail | undefined }> = [];
  const ticket: AdmissionTicket = {
    requestId: 'req_1',
    held: 10_000_000n,
    settle: async (cost, units, _priced, detail) => {
      settled.push({ cost, units, detail });
      return { cost, charged: true } as unknown as ChargeOutcome;
    },
    release: async () => undefined,
  };
  const data = { requestId: 'req_1', accountId: 'a', keyId: 'k', model: route({ image: '0.002' }), deadline: Date.now() + 1000, op: 'generate' as const, params: { prompt: 'x', n: 1 } };
  await runMeteredJob(jobs, ticket, { queue: 'images', data, inputs: [] }, { timeoutMs: 1000 });
  expect(settled).toEqual([{ cost: 2_000_000n, units: { image: 1 }, detail: { lines } }]);
});
