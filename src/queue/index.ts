/**
 * BullMQ queues: job models, payload storage and waiting for a job's answer.
 * This file is the module's face: code outside the module imports from here only.
 */
export { type AsyncAnswer, AsyncJobs, type AsyncJobView } from './async-jobs.js';
export { isPlainBase64, isQuotableAscii } from './detached-strings.js';
export type { QueueObserver } from './job-awaiter.js';
export { encodeJobError, isJobErrorReason, isTransient } from './job-error.js';
export { jobRoutes } from './job-model.js';
export { imagePrice, ocrPrice } from './job-price.js';
export { JobQueue, type JobQueueOptions } from './job-queue.js';
export { retryFits } from './job-retry.js';
export { JudoscaleReporter } from './judoscale-reporter.js';
export type { JobTiming } from './job-reply.js';
export type {
  AnyJobData,
  BlobRef,
  ImageEditJob,
  ImageGenerateJob,
  ImageJobParams,
  ImagesJobResult,
  JobDataMap,
  JobModel,
  JobSummary,
  OcrJob,
  OcrJobResult,
} from './job-types.js';
export { runMeteredJob } from './metered-job.js';
export { type PayloadInput, PayloadStore } from './payload-store.js';
export { closeConnection, settleWithin, workerConnection } from './queue-connections.js';
export { QUEUE_NAMES, type QueueName, queuePrefix, WEBHOOK_QUEUE } from './queue-names.js';
export { jobBase, type QueuedServiceDeps } from './queued-service-deps.js';
