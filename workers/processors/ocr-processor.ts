import type { Job } from 'bullmq';
import type { OcrCapability, OcrDocument } from '../../src/providers/index.js';
import { type JobDataMap, type JobModel, type JobSummary, type OcrJobResult, ocrPrice } from '../../src/queue/index.js';
import { onJobRoutes } from './job-routes.js';
import { loadBlob, runJob, type JobWork, type ProcessorContext } from './job-runner.js';

type OcrJob = JobDataMap['ocr'];

/**
 * Processor of the `ocr` queue: reads the stored document, asks the provider the job's
 * catalog entry names to recognise it, and meters pages processed at the job's prices.
 */
export function ocrProcessor(ctx: ProcessorContext): (job: Job<OcrJob>) => Promise<JobSummary> {
  return (job) =>
    runJob(job, ctx, async (signal, attempts): Promise<JobWork> => {
      const { data } = job;
      const file = await loadBlob(ctx, data, data.document);
      const document: OcrDocument =
        data.document.kind === 'pdf' ? { kind: 'pdf', data: file.data } : { kind: 'image', data: file.data, contentType: file.contentType };
      const recognize = (ocr: OcrCapability, route: JobModel) => ocr.recognize({ upstreamModel: route.upstreamModel, document, signal, ...(data.options ? { options: data.options } : {}) });
      const answer = await onJobRoutes(data.model, ctx, { requestId: data.requestId, signal, attempts }, (provider) => ctx.providers.ocr(provider), recognize);
      const output = answer.value;
      // Metered at the prices of the route that answered, priced once: the web charges these lines.
      const { units, cost, lines } = ocrPrice(answer.route, output.usage.pagesProcessed);
      const result: OcrJobResult = { pages: output.pages, usage: output.usage, units, cost, lines, ...(answer.index !== undefined ? { route: answer.index } : {}), attempts: answer.attempts };
      return { result, summary: { cost, units } };
    });
}
