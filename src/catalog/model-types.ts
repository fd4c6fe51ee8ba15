/** What a model does, which decides the endpoint that serves it. */
export type ModelKind = 'chat' | 'image' | 'ocr';

/** Price keys; each is USD per unit as an exact decimal string. */
export type PriceKey = 'prompt' | 'completion' | 'image' | 'page' | 'image_input' | 'image_output' | 'text_input';

/** A catalog entry as stored. `provider` and `upstream_model` are private. */
export interface ModelDoc {
  _id: string;
  name: string;
  kind: ModelKind;
  provider: string;
  upstream_model: string;
  pricing: Partial<Record<PriceKey, string>>;
  capabilities: string[];
  context_length: number | null;
  /** Most tokens one answer may have; null: bounded by the context length. */
  max_output_tokens: number | null;
  free_tier: boolean;
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
  /** True when every price is zero: such a model needs no balance. */
  readonly isFree: boolean;
}
