import { toUsdNumber } from '../billing/index.js';
import { type CatalogModel, costliestRoute, requireServingRoute, resolveModel } from '../catalog/index.js';
import type { KeyDoc } from '../accounts/index.js';
import type { OcrOptions, OcrPage } from '../providers/index.js';
import { jobBase, type OcrJob, type QueuedServiceDeps, runMeteredJob } from '../queue/index.js';
import { documentSource, loadDocument, type DocumentSource } from './ocr-document.js';
import { describeOcrFit, estimateOcrPages, ocrCostOfPages, pagesOf } from './ocr-estimate.js';
import type { AdmissionTicket, Authorization } from '../admission/index.js';
import { parseOcrRequest, type OcrRequest } from './ocr-schema.js';

/** Longest a document download may take. */
const FETCH_TIMEOUT_MS = 30_000;

/** Mistral's OCR response shape, plus `usage.cost` in USD. */
export interface OcrResponse {
  model: string;
  pages: OcrPage[];
  usage_info: { pages_processed: number; doc_size_bytes: number };
  usage: { cost: number };
}

/** Who is asking: the authenticated key and the request id (= job id). */
export interface OcrCaller {
  key: KeyDoc;
  requestId: string;
  signal: AbortSignal;
  /** Told once the job is queued (see RunOptions.onQueued). */
  onQueued?: () => void;
}

/**
 * A downloaded document may have more pages than the hold assumed: then the hold is replaced
 * by one for its real page count (or the request is refused), so the charge stays within it.
 */
async function holdRealPages(
  deps: QueuedServiceDeps,
  caller: OcrCaller,
  model: CatalogModel,
  ticket: AdmissionTicket,
  downloaded: { kind: string; data: Buffer } | undefined,
  options: OcrOptions,
): Promise<AdmissionTicket> {
  if (downloaded === undefined) return ticket;
  const pages = await pagesOf(downloaded, options);
  const estimate = ocrCostOfPages(model, pages);
  if (estimate <= ticket.held) return ticket;
  await ticket.release();
  const { key, requestId } = caller;
  return deps.admission.admit({ requestId, key, model, estimate, fit: (room) => describeOcrFit(model, pages, room), stream: false });
}

/** An OCR request up to its worst case: the pages held before any download. */
export interface OcrWorstCase {
  readonly request: OcrRequest;
  readonly source: DocumentSource;
  /** The catalog entry the request names. */
  readonly entry: CatalogModel;
  /** The entry at the costliest route's page price: the one held (any route may answer). */
  readonly model: CatalogModel;
  readonly pages: number;
  /** The key's authorization for the entry (admission takes it instead of asking again). */
  readonly authorized: Authorization;
}

/**
 * Validates, resolves the model, checks access and counts the pages to hold. Admission and
 * `POST /v1/quote` both call this, so a quote is always the hold admission would place first.
 */
export async function ocrWorstCase(deps: Pick<QueuedServiceDeps, 'admission' | 'providers' | 'catalog' | 'config'>, key: KeyDoc, rawBody: unknown): Promise<OcrWorstCase> {
  const request = parseOcrRequest(rawBody);
  const source = await documentSource(request, deps.config.limits.uploadFileBytes);
  const entry = resolveModel(deps.catalog, request.model, 'ocr');
  // Allowlist and free tier (403) before provider availability (503), as for chat.
  const authorized = await deps.admission.authorize(key, entry);
  const providers = deps.providers;
  if (providers !== undefined) requireServingRoute(entry, (provider) => providers.ocr(provider));
  // Held at the costliest route's page price: any route may end up answering.
  const model = costliestRoute(entry, (priced) => ocrCostOfPages(priced, 1));
  return { request, source, entry, model, pages: await estimateOcrPages(source, request.options), authorized };
}

/**
 * `POST /v1/ocr`: validate (data URLs decoded, URL schemes checked) → model → admission →
 * SSRF-guarded download of https documents → job → settle on delivery → answer. The web
 * downloads, so a refused or failing URL is a 400 before anything is enqueued.
 */
export async function recognizeDocument(deps: QueuedServiceDeps, caller: OcrCaller, rawBody: unknown): Promise<OcrResponse> {
  const { key, requestId, signal } = caller;
  const maxBytes = deps.config.limits.uploadFileBytes;
  const { request, source, entry, model, pages, authorized } = await ocrWorstCase(deps, key, rawBody);
  let ticket = await deps.admission.admit({ requestId, key, model, authorized, estimate: ocrCostOfPages(model, pages), fit: (room) => describeOcrFit(model, pages, room), worstUnits: { page: pages }, stream: false });
  const timeoutMs = deps.config.jobTimeoutMs;
  let input;
  try {
    input = await loadDocument(request, source, {
      maxBytes,
      timeoutMs: Math.min(FETCH_TIMEOUT_MS, timeoutMs),
      allowLoopback: deps.config.documentFetchAllowLoopback,
      signal,
      ...(deps.documentFetch ? { overrides: deps.documentFetch } : {}),
    });
    ticket = await holdRealPages(deps, caller, model, ticket, 'inline' in source ? undefined : input, request.options);
  } catch (err) {
    await ticket.release();
    throw err;
  }
  const data: OcrJob = {
    ...jobBase(requestId, key, entry, timeoutMs),
    op: 'recognize',
    document: { name: 'document', filename: 'document', contentType: input.contentType, bytes: input.data.length, kind: input.kind },
    options: request.options,
  };
  const inputs = [{ name: 'document', data: input.data }];
  const { result, cost } = await runMeteredJob(deps.jobs, ticket, { queue: 'ocr', data, inputs, attempts: deps.requests?.draft(requestId) }, { timeoutMs, signal, onQueued: caller.onQueued });
  return {
    model: entry.id,
    pages: result.pages,
    usage_info: { pages_processed: result.usage.pagesProcessed, doc_size_bytes: result.usage.docSizeBytes },
    usage: { cost: toUsdNumber(cost) },
  };
}
