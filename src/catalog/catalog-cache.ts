import type { Logger } from 'pino';
import { holdUnitPrices, parsePrice } from '../billing/index.js';
import type { CatalogRepository } from './catalog-repository.js';
import { priceVersion } from './price-version.js';
import { aliasIndex } from './aliases.js';
import type { CatalogModel, CatalogRoute, ModelDoc, PriceKey, RouteDoc } from './model-types.js';

function priced(doc: ModelDoc, routes: readonly CatalogRoute[]): CatalogModel {
  const prices: Partial<Record<PriceKey, bigint>> = {};
  for (const [key, value] of Object.entries(doc.pricing) as Array<[PriceKey, string | undefined]>) {
    // `cache_hit` is a fraction of a cached answer's cost, not a price per unit.
    if (value !== undefined && key !== ('cache_hit' as string)) prices[key] = parsePrice(value);
  }
  const isFree = Object.values(prices).every((p) => p === 0n);
  return { id: doc._id, doc, prices, isFree, priceVersion: priceVersion(doc.pricing), holdPrices: holdUnitPrices({ prices }), routes };
}

/** The entry as one route serves it: the route's provider, upstream name and prices. */
function routeView(doc: ModelDoc, route: RouteDoc): CatalogRoute {
  const { routes: _routes, ...rest } = doc;
  const prefill = route.prefill === undefined ? {} : { prefill: route.prefill };
  const pricing = route.pricing === undefined ? doc.pricing : { ...doc.pricing, ...route.pricing };
  const model = priced({ ...rest, provider: route.provider, upstream_model: route.upstream_model, pricing }, []);
  return { key: `${doc._id}@${route.provider}/${route.upstream_model}`, provider: route.provider, upstreamModel: route.upstream_model, ...prefill, model };
}

/** Parses a stored entry's prices (and each route's) once, so requests never parse decimals. */
export function toCatalogModel(doc: ModelDoc): CatalogModel {
  const routes = doc.routes ?? [{ provider: doc.provider, upstream_model: doc.upstream_model }];
  return priced(doc, routes.map((route) => routeView(doc, route)));
}

/** Polls between full reads made even though the fingerprint did not move (edits made past the repository). */
const FULL_READ_EVERY_POLLS = 12;

/**
 * The catalog held in memory by each process. Reloaded on invalidation messages and on a
 * short poll as a fallback, so operator edits reach every process within seconds. The poll
 * reads only the catalog's fingerprint unless it moved (and, now and then, the whole catalog
 * anyway); an entry whose document did not change keeps its parsed prices and price version.
 */
export class CatalogCache {
  private models = new Map<string, CatalogModel>();
  private aliases = new Map<string, string>();
  /** Each entry's stored document as JSON, the key under which its parsed form is reused. */
  private sources = new Map<string, string>();
  private fingerprint: string | undefined;
  private polls = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly repository: CatalogRepository,
    private readonly log: Logger,
    private readonly pollMs = 5_000,
  ) {}

  /** Loads the catalog and starts the fallback poll. */
  async start(): Promise<void> {
    await this.reload();
    this.timer = setInterval(() => void this.poll(), this.pollMs);
    this.timer.unref();
  }

  /** Stops polling. */
  stop(): void {
    clearInterval(this.timer);
  }

  /** Replaces the in-memory catalog with what MongoDB holds now. */
  async reload(): Promise<void> {
    const fingerprint = await this.repository.fingerprint();
    const docs = await this.repository.listActive();
    const models = new Map<string, CatalogModel>();
    const sources = new Map<string, string>();
    for (const doc of docs) {
      const source = JSON.stringify(doc);
      const known = this.sources.get(doc._id) === source ? this.models.get(doc._id) : undefined;
      models.set(doc._id, known ?? toCatalogModel(doc));
      sources.set(doc._id, source);
    }
    this.models = models;
    this.sources = sources;
    this.aliases = aliasIndex(docs);
    this.fingerprint = fingerprint;
  }

  /** Reload that logs instead of throwing (background use). */
  async reloadQuietly(): Promise<void> {
    try {
      await this.reload();
    } catch (err) {
      this.log.warn({ err }, 'catalog reload failed; keeping the previous catalog');
    }
  }

  /** The fallback poll: a full read only when the fingerprint moved, or every few polls. */
  private async poll(): Promise<void> {
    try {
      const due = ++this.polls % FULL_READ_EVERY_POLLS === 0;
      if (!due && (await this.repository.fingerprint()) === this.fingerprint) return;
    } catch (err) {
      this.log.warn({ err }, 'catalog check failed; keeping the previous catalog');
      return;
    }
    await this.reloadQuietly();
  }

  /** One model by id or alias, if listed; a real id is never shadowed by an alias. */
  get(id: string): CatalogModel | undefined {
    const model = this.models.get(id);
    if (model !== undefined) return model;
    const target = this.aliases.get(id);
    return target === undefined ? undefined : this.models.get(target);
  }

  /** Every listed model, ordered by id. */
  list(): CatalogModel[] {
    return [...this.models.values()];
  }
}
