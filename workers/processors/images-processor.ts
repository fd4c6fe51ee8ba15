import type { Job } from 'bullmq';
import type { ImageGenerateCall, ImageResult, ImagesCapability } from '../../src/providers/index.js';
import { imagePrice, type ImagesJobResult, type JobDataMap, type JobModel, type JobSummary } from '../../src/queue/index.js';
import type { AttemptList } from '../../src/routing/index.js';
import { onJobRoutes, type RoutedAnswer } from './job-routes.js';
import { loadBlob, runJob, type JobWork, type ProcessorContext } from './job-runner.js';

type ImagesJob = JobDataMap['images'];

async function callProvider(ctx: ProcessorContext, data: ImagesJob, signal: AbortSignal, attempts: AttemptList): Promise<RoutedAnswer<ImageResult>> {
  return onJobRoutes(data.model, ctx, { requestId: data.requestId, signal, attempts }, (provider) => ctx.providers.images(provider), (images, route) => callRoute(ctx, data, images, route, signal));
}

async function callRoute(ctx: ProcessorContext, data: ImagesJob, images: ImagesCapability, route: JobModel, signal: AbortSignal): Promise<ImageResult> {
  const { params } = data;
  const call: ImageGenerateCall = {
    upstreamModel: route.upstreamModel,
    prompt: params.prompt,
    n: params.n,
    signal,
    ...(params.size === undefined ? {} : { size: params.size }),
    ...(params.quality === undefined ? {} : { quality: params.quality }),
    ...(params.background === undefined ? {} : { background: params.background }),
    ...(params.outputFormat === undefined ? {} : { outputFormat: params.outputFormat }),
  };
  if (data.op === 'generate') return images.generate(call);
  const files = await Promise.all(data.images.map((ref) => loadBlob(ctx, data, ref)));
  const mask = data.mask === undefined ? undefined : await loadBlob(ctx, data, data.mask);
  return images.edit({ ...call, images: files, ...(mask === undefined ? {} : { mask }) });
}

/**
 * Processor of the `images` queue (`generate` and `edit` jobs): calls the provider the job's
 * catalog entry names, meters the output at the job's prices and stores it for the web.
 */
export function imagesProcessor(ctx: ProcessorContext): (job: Job<ImagesJob>) => Promise<JobSummary> {
  return (job) =>
    runJob(job, ctx, async (signal, attempts): Promise<JobWork> => {
      const answer = await callProvider(ctx, job.data, signal, attempts);
      const output = answer.value;
      // Metered at the prices of the route that answered, priced once: the web charges these lines.
      const { units, cost, lines } = imagePrice(answer.route, output.usage);
      const result: ImagesJobResult = { images: output.images, usage: output.usage, units, cost, lines, ...(answer.index !== undefined ? { route: answer.index } : {}), attempts: answer.attempts };
      return { result, summary: { cost, units } };
    });
}
