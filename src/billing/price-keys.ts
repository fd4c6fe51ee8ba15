/**
 * Price keys, named as OpenRouter names them; each is USD per unit as an exact decimal string.
 * Tokens: `prompt` (input not read from or written to a cache), `completion` (visible output),
 * `internal_reasoning` (reasoning output; defaults to `completion`), `input_cache_read`,
 * `input_cache_write` (5-minute writes) and `input_cache_write_1h`. Per call: `request`; per
 * server-side search: `web_search`; per image: `image`; per OCR page: `page`; gpt-image
 * models: `text_input`, `image_input`, `image_output` tokens.
 */
export const PRICE_KEYS = [
  'prompt',
  'completion',
  'internal_reasoning',
  'input_cache_read',
  'input_cache_write',
  'input_cache_write_1h',
  'request',
  'web_search',
  'image',
  'page',
  'image_input',
  'image_output',
  'text_input',
] as const;

/** One of {@link PRICE_KEYS}. */
export type PriceKey = (typeof PRICE_KEYS)[number];
