import type { HoldUnitPrices, PriceKey } from '../billing/index.js';

/** The price keys belong to billing; catalog entries carry a price for some of them. */
export type { PriceKey };

/** What a model does, which decides the endpoint that serves it. */
export type ModelKind = 'chat' | 'image' | 'ocr' | 'embedding';

/**
 * How a model's prompt is bounded for holds: `o200k` when its vendor counts with OpenAI's
 * o200k_base encoding (the bound is then that count), `other` for every other tokenizer (a
 * bound that holds whatever the vocabulary; see prompt-bound.ts).
 */
export type TokenizerFamily = 'o200k' | 'other';

/** One way to serve a model: a provider, its name for the model, and maybe its own prices. */
export interface RouteDoc {
  provider: string;
  upstream_model: string;
  /** Prices that differ at this vendor; keys left out are the model's. */
  pricing?: Partial<Record<PriceKey, string>>;
  /** Whether this route may continue a partial answer sent as a trailing assistant message (absent: its provider's setting). */
  prefill?: boolean;
}

/**
 * A catalog entry as stored. `provider` and `upstream_model` (the first route) and `routes`
 * are private. Without `routes` the entry has the one route `provider`/`upstream_model`.
 */
export interface ModelDoc {
  _id: string;
  name: string;
  kind: ModelKind;
  provider: string;
  upstream_model: string;
  /** Routes in order of preference, when the entry has more than one or a route's own prices. */
  routes?: RouteDoc[];
  /** Other ids that resolve to this entry; never one of a real entry. */
  aliases?: string[];
  /**
   * Prices per unit; `cache_hit` is no unit price but the fraction (0 to 1) of a cached
   * answer's original cost that a request served from the response cache pays (absent: 0).
   */
  pricing: Partial<Record<PriceKey, string>> & { cache_hit?: string };
  capabilities: string[];
  context_length: number | null;
  /** Most tokens one answer may have; null: bounded by the context length. */
  max_output_tokens: number | null;
  /** Prompt bound used for holds; absent: `other`. */
  tokenizer?: TokenizerFamily;
  /** Most server-side web searches one request may make, for holds when the request sets none. */
  max_web_searches?: number | null;
  free_tier: boolean;
  /** Embedding models: length of the vectors they return by default; absent for other kinds. */
  dimensions?: number | null;
  created: number;
  owned_by: string;
  retired: boolean;
  updated_at: Date;
}

/** A catalog entry in memory, with prices parsed to exact atto-USD. */
export interface CatalogModel {
  readonly id: string;
  readonly doc: ModelDoc;
  readonly prices: Readonly<Partial<Record<PriceKey, bigint>>>;
  /** Identifies the prices: changes whenever any price of the entry changes. */
  readonly priceVersion: string;
  /** True when every price is zero: such a model needs no balance. */
  readonly isFree: boolean;
  /** The unit prices a chat hold counts at, worked out once at load (absent on entries built by hand). */
  readonly holdPrices?: HoldUnitPrices;
  /**
   * The entry's routes in order of preference. Each carries the entry as served by that route
   * (its provider, upstream name and prices), so a request is billed at the prices of the
   * route that answered. A route's own view has none; see `modelRoutes` for entries built by hand.
   */
  readonly routes?: readonly CatalogRoute[];
}

/** One route of a catalog entry, ready to serve. */
export interface CatalogRoute {
  /** Stable name of the route for health and metrics: `<model id>@<provider>/<upstream model>`. */
  readonly key: string;
  readonly provider: string;
  readonly upstreamModel: string;
  /** The route's own word on assistant prefill (absent: its provider's setting). */
  readonly prefill?: boolean;
  /** The entry as this route serves it: `doc.provider`, `doc.upstream_model` and the prices are the route's. */
  readonly model: CatalogModel;
}
