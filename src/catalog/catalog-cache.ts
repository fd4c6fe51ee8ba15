import type { Logger } from 'pino';
import { parsePrice } from '../billing/money.js';
import type { CatalogRepository } from './catalog-repository.js';
import type { CatalogModel, ModelDoc, PriceKey } from './model-types.js';

/** Parses a stored entry's prices once, so requests never parse decimals. */
export function toCatalogModel(doc: ModelDoc): CatalogModel {
  const prices: Partial<Record<PriceKey, bigint>> = {};
  for (const [key, value] of Object.entries(doc.pricing) as Array<[PriceKey, string | undefined]>) {
    if (value !== undefined) prices[key] = parsePrice(value);
  }
  const isFree = Object.values(prices).every((p) => p === 0n);
  return { id: doc._id, doc, prices, isFree };
}

/**
 * The catalog held in memory by each process. Reloaded on invalidation messages and on a
 * short poll as a fallback, so operator edits reach every process within seconds.
 */
export class CatalogCache {
  private models = new Map<string, CatalogModel>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly repository: CatalogRepository,
    private readonly log: Logger,
    private readonly pollMs = 5_000,
  ) {}

  /** Loads the catalog and starts the fallback poll. */
  async start(): Promise<void> {
    await this.reload();
    this.timer = setInterval(() => void this.reloadQuietly(), this.pollMs);
    this.timer.unref();
  }

  /** Stops polling. */
  stop(): void {
    clearInterval(this.timer);
  }

  /** Replaces the in-memory catalog with what MongoDB holds now. */
  async reload(): Promise<void> {
    const docs = await this.repository.listActive();
    this.models = new Map(docs.map((d) => [d._id, toCatalogModel(d)]));
  }

  /** Reload that logs instead of throwing (background use). */
  async reloadQuietly(): Promise<void> {
    try {
      await this.reload();
    } catch (err) {
      this.log.warn({ err }, 'catalog reload failed; keeping the previous catalog');
    }
  }

  /** One model by id, if listed. */
  get(id: string): CatalogModel | undefined {
    return this.models.get(id);
  }

  /** Every listed model, ordered by id. */
  list(): CatalogModel[] {
    return [...this.models.values()];
  }
}
