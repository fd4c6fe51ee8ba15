import type { Clock } from '../billing/periods.js';
import type { CatalogCache } from '../catalog/catalog-cache.js';
import type { CatalogModel } from '../catalog/model-types.js';
import type { Config } from '../platform/config/config.js';
import type { FetchDocumentOptions } from '../platform/documents/fetch-document.js';
import type { KeyDoc } from '../accounts/keys/key-types.js';
import type { Admission } from '../admission/admission-types.js';
import type { ProviderRegistry } from '../providers/registry.js';
import type { DraftLookup } from '../ledger/records/record-draft.js';
import { jobModelOf } from './job-model.js';
import type { JobQueue } from './job-queue.js';
import type { JobBase } from './job-types.js';

/** What the image and OCR services need from the composition root. */
export interface QueuedServiceDeps {
  readonly catalog: CatalogCache;
  readonly admission: Admission;
  readonly jobs: JobQueue;
  readonly clock: Clock;
  readonly config: Pick<Config, 'jobTimeoutMs' | 'limits' | 'documentFetchAllowLoopback'>;
  /**
   * When given, a model whose provider is disabled or lacks the capability is refused before
   * anything is held or enqueued (503/502) instead of failing in the worker.
   */
  readonly providers?: Pick<ProviderRegistry, 'images' | 'ocr'>;
  /** Open request records, given the routes a job tried. */
  readonly requests?: DraftLookup;
  /** Trust and resolver overrides for document fetches (tests against local https servers). */
  readonly documentFetch?: Pick<FetchDocumentOptions, 'tls' | 'resolver'>;
}

/** The fields every job of a request carries; the deadline is when the front door gives up. */
export function jobBase(requestId: string, key: KeyDoc, model: CatalogModel, timeoutMs: number): JobBase {
  return { requestId, accountId: key.account_id, keyId: key._id, model: jobModelOf(model), deadline: Date.now() + timeoutMs };
}
