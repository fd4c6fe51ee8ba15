/**
 * Money arithmetic, prices, tokenizers and spend windows.
 * This file is the module's face: code outside the module imports from here only.
 */
export { dataUrlDimensions, imageTokenBound } from './image-tokens.js';
export { attoUsd, ceilAttoToNano, formatUsd, maxBig, minBig, type Nano, parsePrice, parseUsdAmount, parseUsdCap, toUsdNumber } from './money.js';
export { type Clock, dayPeriod, monthPeriod, nextDayStart, systemClock, utcDayNumber, weekPeriod } from './periods.js';
export { PRICE_KEYS, type PriceKey } from './price-keys.js';
export {
  type BilledUnits,
  chatUnits,
  type CostLine,
  costLinesWire,
  type CostLineWire,
  costOf,
  holdUnitPrices,
  type HoldUnitPrices,
  type ImageCounts,
  imageUnits,
  ocrUnits,
  priceUnits,
  unitPrice,
} from './pricing.js';
export {
  bucketOwner,
  type CalendarWindow,
  type CapName,
  daysSoFar,
  type LimitScope,
  type MirrorName,
  periodOf,
  resetOf,
  SPEND_MIRRORS,
  spendMirror,
  type SpendMirror,
  type SpendWindow,
  WINDOW_ORDER,
} from './spend-windows.js';
export { countMessageTokensAsync, countTokensAsync, sumPieces } from './token-count-async.js';
export type { TokenSource } from './token-source.js';
export {
  anyVocabularyPieceBound,
  boundBudget,
  boundPiece,
  countPiece,
  countTokens,
  MAX_BPE_PIECE,
  pieces,
  promptTexts,
  truncateToTokens,
  utf8Bytes,
} from './tokenizer.js';
