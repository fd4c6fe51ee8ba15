import type { Clock } from '../billing/index.js';
import type { CatalogCache, CatalogModel } from '../catalog/index.js';
import type { Config } from '../platform/config/index.js';
import type { FetchDocumentOptions } from '../platform/documents/index.js';
import type { KeyDoc } from '../accounts/index.js';
import type { Admission } from '../admission/index.js';
import type { ProviderRegistry } from '../providers/index.js';
import type { DraftLookup } from '../ledger/index.js';
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
