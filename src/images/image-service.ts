import { type CatalogModel, costliestRoute, requireServingRoute, resolveModel } from '../catalog/index.js';
import { GatewayError } from '../platform/errors/index.js';
import type { MultipartForm } from './image-form.js';
import type { KeyDoc } from '../accounts/index.js';
import type { Authorization } from '../admission/index.js';
import {
  type ImageEditJob,
  type ImageGenerateJob,
  type ImageJobParams,
  jobBase,
  type PayloadInput,
  type QueuedServiceDeps,
  runMeteredJob,
} from '../queue/index.js';
import type { BilledUnits } from '../billing/index.js';
import { describeImageFit, estimateImageCost, imagesThatFit, imageWorstUnits } from './image-estimate.js';
import { imagesResponse, type ImagesResponse } from './image-response.js';
import { parseEditRequest, parseGenerateRequest } from './image-schema.js';
import { checkEditUploads } from './image-uploads.js';

/** Who is asking: the authenticated key and the request id (= job id). */
export interface ImageCaller {
  key: KeyDoc;
  requestId: string;
  /** Fires when the client goes away. */
  signal: AbortSignal;
  /** Told once the job is queued (see RunOptions.onQueued). */
  onQueued?: () => void;
}

type JobSpec = Pick<ImageGenerateJob, 'op' | 'params'> | Pick<ImageEditJob, 'op' | 'params' | 'images' | 'mask'>;

/** Allowlist and free tier (403) come before provider availability (503), as for chat. */
async function checkAccess(deps: Pick<QueuedServiceDeps, 'admission' | 'providers'>, key: KeyDoc, model: CatalogModel): Promise<Authorization> {
  const authorized = await deps.admission.authorize(key, model);
  const providers = deps.providers;
  if (providers !== undefined) requireServingRoute(model, (provider) => providers.images(provider));
  return authorized;
}

/** An image request up to its worst case: what admission holds and what a quote shows. */
export interface ImageWorstCase {
  /** The entry at the costliest route's prices: the one held (any route may answer). */
  readonly model: CatalogModel;
  readonly estimate: bigint;
  readonly units: BilledUnits;
  readonly fit: (room: bigint) => string;
  /** The largest `n` that fits a room. */
  readonly largestN: (room: bigint) => number;
  /** The key's authorization for the model (admission takes it instead of asking again). */
  readonly authorized: Authorization;
}

/**
 * Access checks and the worst case of an image request. Admission and `POST /v1/quote` both
 * call this, so a quote is always the hold admission would place.
 */
export async function imageWorstCase(deps: Pick<QueuedServiceDeps, 'admission' | 'providers'>, key: KeyDoc, model: CatalogModel, params: ImageJobParams, references: number): Promise<ImageWorstCase> {
  const authorized = await checkAccess(deps, key, model);
  // Held at the costliest route's prices: any route may end up answering.
  const held = costliestRoute(model, (priced) => estimateImageCost(priced, params, references));
  return {
    model: held,
    estimate: estimateImageCost(held, params, references),
    units: imageWorstUnits(params, references, params.n),
    fit: (room) => describeImageFit(held, params, references, room),
    largestN: (room) => imagesThatFit(held, params, references, room),
    authorized,
  };
}

/** Admits the request with a hold of its worst case, runs the job and settles on delivery. */
async function runImages(
  deps: QueuedServiceDeps,
  caller: ImageCaller,
  model: CatalogModel,
  spec: JobSpec,
  inputs: readonly PayloadInput[],
): Promise<ImagesResponse> {
  const { key, requestId, signal } = caller;
  const worst = await imageWorstCase(deps, key, model, spec.params, spec.op === 'edit' ? spec.images.length : 0);
  const ticket = await deps.admission.admit({ requestId, key, model: worst.model, authorized: worst.authorized, estimate: worst.estimate, fit: worst.fit, worstUnits: worst.units, stream: false });
  const created = Math.floor(deps.clock().getTime() / 1000);
  const timeoutMs = deps.config.jobTimeoutMs;
  const data = { ...jobBase(requestId, key, model, timeoutMs), ...spec } as ImageGenerateJob | ImageEditJob;
  const { result, cost } = await runMeteredJob(deps.jobs, ticket, { queue: 'images', data, inputs, attempts: deps.requests?.draft(requestId) }, { timeoutMs, signal, onQueued: caller.onQueued });
  return imagesResponse(created, result, cost);
}

/** `POST /v1/images/generations`: validate → model → admission → job → settle → answer. */
export async function generateImages(deps: QueuedServiceDeps, caller: ImageCaller, rawBody: unknown): Promise<ImagesResponse> {
  const request = parseGenerateRequest(rawBody);
  const model = resolveModel(deps.catalog, request.model, 'image');
  return runImages(deps, caller, model, { op: 'generate', params: request.params }, []);
}

/**
 * `POST /v1/images/edits`: the form's fields and files are checked (model kind, REFERENCES
 * capability, real image bytes) before anything is held or enqueued.
 */
export async function editImages(deps: QueuedServiceDeps, caller: ImageCaller, form: MultipartForm): Promise<ImagesResponse> {
  const request = parseEditRequest(form.fields);
  const model = resolveModel(deps.catalog, request.model, 'image');
  if (!model.doc.capabilities.includes('REFERENCES')) {
    throw new GatewayError('model_capability_missing', `Model '${model.id}' does not support image edits (REFERENCES).`, {
      param: 'model',
    });
  }
  const uploads = await checkEditUploads(form.files);
  const spec = { op: 'edit' as const, params: request.params, images: uploads.images, ...(uploads.mask ? { mask: uploads.mask } : {}) };
  return runImages(deps, caller, model, spec, uploads.inputs);
}
