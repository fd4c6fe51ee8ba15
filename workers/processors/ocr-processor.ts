import type { Job } from 'bullmq';
import { costOf, ocrUnits } from '../../src/billing/pricing.js';
import type { OcrDocument } from '../../src/providers/ocr/ocr-types.js';
import { pricedModel } from '../../src/queue/job-model.js';
import type { JobDataMap, JobSummary, OcrJobResult } from '../../src/queue/job-types.js';
import { loadBlob, runJob, type JobWork, type ProcessorContext } from './job-runner.js';

type OcrJob = JobDataMap['ocr'];

/**
 * Processor of the `ocr` queue: reads the stored document, asks the provider the job's
 * catalog entry names to recognise it, and meters pages processed at the job's prices.
 */
export function ocrProcessor(ctx: ProcessorContext): (job: Job<OcrJob>) => Promise<JobSummary> {
  return (job) =>
    runJob(job, ctx, async (signal): Promise<JobWork> => {
      const { data } = job;
      const ocr = ctx.providers.ocr(data.model.provider);
      const file = await loadBlob(ctx, data.requestId, data.document);
      const document: OcrDocument =
        data.document.kind === 'pdf' ? { kind: 'pdf', data: file.data } : { kind: 'image', data: file.data, contentType: file.contentType };
      const output = await ocr.recognize({ upstreamModel: data.model.upstreamModel, document, signal, ...(data.options ? { options: data.options } : {}) });
      const units = ocrUnits(output.usage.pagesProcessed);
      const cost = costOf(pricedModel(data.model), units).toString();
      const result: OcrJobResult = { pages: output.pages, usage: output.usage, units, cost };
      return { result, summary: { cost, units } };
    });
}
