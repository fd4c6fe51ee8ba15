import type { BilledUnits, CostLineWire } from '../billing/index.js';
import type { ModelKind, PriceKey } from '../catalog/index.js';
import type { ImageGenerateCall, ImageUsage, OcrOptions, OcrPage, OcrResult } from '../providers/index.js';
import type { AttemptRecord } from '../ledger/index.js';
import type { QueueName } from './queue-names.js';

/**
 * The catalog entry a request was admitted with, frozen into the job so the worker calls the
 * same provider and prices the result at the prices the client was admitted under, even if
 * an operator edits the catalog while the job waits.
 */
export interface JobModel {
  id: string;
  kind: ModelKind;
  provider: string;
  upstreamModel: string;
  pricing: Partial<Record<PriceKey, string>>;
  /** Every route in order of preference, each with its own prices, when the entry has several. */
  routes?: JobRoute[];
}

/** One route a job may take. */
export interface JobRoute {
  provider: string;
  upstreamModel: string;
  pricing: Partial<Record<PriceKey, string>>;
}

/**
 * A binary input kept beside the job in Redis (see PayloadStore) rather than inside the job
 * hash, so multi-megabyte uploads never travel through BullMQ's scripts or event stream.
 */
export interface BlobRef {
  /** Name of the blob under the request (`image-0`, `mask`, `document`). */
  name: string;
  filename: string;
  contentType: string;
  bytes: number;
}

/** What every job carries. The BullMQ job id is the request id, so enqueueing is idempotent. */
export interface JobBase {
  requestId: string;
  accountId: string;
  keyId: string;
  model: JobModel;
  /** Epoch ms after which nobody waits for the result; the worker gives up then. */
  deadline: number;
  /** Pub/sub channel of the web process waiting for the result (absent: it polls and listens for events). */
  replyTo?: string;
  /** W3C trace context of the request (`traceparent`), when traces are exported: the job's span is its child. */
  trace?: Record<string, string>;
}

/** Parameters of an image generation or edit, already validated by the web. */
export type ImageJobParams = Omit<ImageGenerateCall, 'upstreamModel' | 'signal'>;

/** `images` queue, job name `generate`. */
export interface ImageGenerateJob extends JobBase {
  op: 'generate';
  params: ImageJobParams;
}

/** `images` queue, job name `edit`: reference images and an optional mask as blobs. */
export interface ImageEditJob extends JobBase {
  op: 'edit';
  params: ImageJobParams;
  images: BlobRef[];
  mask?: BlobRef;
}

/** `ocr` queue, job name `recognize`: the fetched or decoded document as a blob. */
export interface OcrJob extends JobBase {
  op: 'recognize';
  document: BlobRef & { kind: 'pdf' | 'image' };
  /** The client's OCR options (pages, image extraction); absent on jobs queued before they existed. */
  options?: OcrOptions;
}

/** Job data by queue. */
export interface JobDataMap {
  images: ImageGenerateJob | ImageEditJob;
  ocr: OcrJob;
}

/** What a finished job leaves for the web: the output, the units and their metered cost. */
interface JobResultBase {
  units: BilledUnits;
  /** Metered cost in nano-USD, as a decimal string (JSON has no bigint). */
  cost: string;
  /** The billed components of `cost`, priced by the worker (absent from older workers: the web prices them). */
  lines?: CostLineWire[];
  /** Index in `model.routes` of the route that answered, when the job had several. */
  route?: number;
  /** Every route the worker tried or skipped, in order, for the request's record (absent from older workers). */
  attempts?: AttemptRecord[];
}

/**
 * Result of an `images` job. An image's base64 arrives as bytes when the web read a large result
 * from the stored copy (see PayloadStore.getReply): megabytes it writes out without decoding.
 */
export interface ImagesJobResult extends JobResultBase {
  images: Array<{ b64_json: string | Buffer; revised_prompt?: string }>;
  usage: ImageUsage;
}

/** Result of an `ocr` job. */
export interface OcrJobResult extends JobResultBase {
  pages: OcrPage[];
  usage: OcrResult['usage'];
}

/** Job results by queue. */
export interface JobResultMap {
  images: ImagesJobResult;
  ocr: OcrJobResult;
}

/**
 * The BullMQ return value: deliberately small, because BullMQ copies return values into the
 * queue's event stream. The output itself is in the PayloadStore under the request id.
 */
export interface JobSummary {
  cost: string;
  units: BilledUnits;
}

/** Any queue's job data. */
export type AnyJobData = JobDataMap[QueueName];
