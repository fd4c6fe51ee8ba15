import type { Logger } from 'pino';
import type { CatalogCache } from '../catalog/index.js';
import type { Admission } from '../admission/index.js';
import type { Metrics } from '../metrics/index.js';
import type { ProviderAdapter } from '../providers/index.js';

/** What the embeddings service needs from the composition root. */
export interface EmbeddingsServiceDeps {
  readonly catalog: CatalogCache;
  /** The adapter of an enabled provider (throws 503 when it is disabled). */
  readonly providers: { get(providerId: string): ProviderAdapter };
  readonly admission: Admission;
  readonly log: Logger;
  /** Optional so unit tests can leave metrics out. */
  readonly metrics?: Metrics;
}
