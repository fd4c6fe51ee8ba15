import type { Job } from 'bullmq';
import { costOf, imageUnits } from '../../src/billing/pricing.js';
import type { ImageGenerateCall, ImageResult } from '../../src/providers/images/image-types.js';
import { pricedModel } from '../../src/queue/job-model.js';
import type { ImagesJobResult, JobDataMap, JobSummary } from '../../src/queue/job-types.js';
import { loadBlob, runJob, type JobWork, type ProcessorContext } from './job-runner.js';

type ImagesJob = JobDataMap['images'];

async function callProvider(ctx: ProcessorContext, data: ImagesJob, signal: AbortSignal): Promise<ImageResult> {
  const images = ctx.providers.images(data.model.provider);
  const { params } = data;
  const call: ImageGenerateCall = {
    upstreamModel: data.model.upstreamModel,
    prompt: params.prompt,
    n: params.n,
    signal,
    ...(params.size === undefined ? {} : { size: params.size }),
    ...(params.quality === undefined ? {} : { quality: params.quality }),
    ...(params.background === undefined ? {} : { background: params.background }),
    ...(params.outputFormat === undefined ? {} : { outputFormat: params.outputFormat }),
  };
  if (data.op === 'generate') return images.generate(call);
  const files = await Promise.all(data.images.map((ref) => loadBlob(ctx, data.requestId, ref)));
  const mask = data.mask === undefined ? undefined : await loadBlob(ctx, data.requestId, data.mask);
  return images.edit({ ...call, images: files, ...(mask === undefined ? {} : { mask }) });
}

/**
 * Processor of the `images` queue (`generate` and `edit` jobs): calls the provider the job's
 * catalog entry names, meters the output at the job's prices and stores it for the web.
 */
export function imagesProcessor(ctx: ProcessorContext): (job: Job<ImagesJob>) => Promise<JobSummary> {
  return (job) =>
    runJob(job, ctx, async (signal): Promise<JobWork> => {
      const output = await callProvider(ctx, job.data, signal);
      const model = pricedModel(job.data.model);
      const units = imageUnits(model, output.usage);
      const cost = costOf(model, units).toString();
      const result: ImagesJobResult = { images: output.images, usage: output.usage, units, cost };
      return { result, summary: { cost, units } };
    });
}
