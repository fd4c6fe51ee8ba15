import type { CatalogModel, PriceKey } from '../catalog/model-types.js';
import type { TokenUsage } from '../providers/chat/chat-types.js';
import type { ImageUsage } from '../providers/images/image-types.js';
import { attoToNano, type Nano } from './money.js';

/** Units consumed, by the price key that prices them. */
export type BilledUnits = Partial<Record<PriceKey, number>>;

/**
 * Exact cost of some units at a model's prices: each product is exact in atto-USD and the
 * total is rounded once to nano-USD. A unit without a price costs nothing.
 */
export function costOf(model: CatalogModel, units: BilledUnits): Nano {
  let atto = 0n;
  for (const [key, count] of Object.entries(units) as Array<[PriceKey, number | undefined]>) {
    const price = model.prices[key];
    if (price !== undefined && count !== undefined && count > 0) atto += price * BigInt(Math.ceil(count));
  }
  return attoToNano(atto);
}

/** Chat units: reasoning tokens are part of completion tokens, as upstreams report them. */
export function chatUnits(usage: TokenUsage): BilledUnits {
  return { prompt: usage.promptTokens, completion: usage.completionTokens };
}

/** Image units: token-priced models (gpt-image) bill tokens, the others bill per image. */
export function imageUnits(model: CatalogModel, usage: ImageUsage): BilledUnits {
  const tokenPriced = model.prices.image_output !== undefined || model.prices.text_input !== undefined;
  if (!tokenPriced) return { image: usage.images };
  return { text_input: usage.textInputTokens, image_input: usage.imageInputTokens, image_output: usage.imageOutputTokens };
}

/** OCR units: pages processed. */
export function ocrUnits(pagesProcessed: number): BilledUnits {
  return { page: pagesProcessed };
}
