/** Embeddings types, shaped after OpenAI's `/v1/embeddings` so OpenAI-compatible vendors map 1:1. */

/**
 * What to embed, in the shape the client sent it: one text, several texts, one list of token
 * ids, or several such lists. Adapters pass it on as it came (vendors bill the same shape).
 */
export type EmbeddingInput = string | string[] | number[] | number[][];

/** Input of an embeddings call. */
export interface EmbeddingsCall {
  upstreamModel: string;
  input: EmbeddingInput;
  /** Requested vector length; absent means the model's default. */
  dimensions?: number;
  /** End-user id, passed on for the vendor's abuse monitoring. */
  user?: string;
  signal: AbortSignal;
}

/** One vector per input, in input order, and what the upstream says it billed. */
export interface EmbeddingsResult {
  vectors: ArrayLike<number>[];
  /**
   * The upstream's own JSON bytes of each vector (`[0.1,…]`), in input order, when they could
   * be kept: sent as they are for `encoding_format: float` instead of formatting the numbers again.
   */
  raw?: Buffer[];
  /** Upstream `usage.prompt_tokens`; undefined when it reported none. */
  promptTokens?: number;
}

/** The embeddings capability of a provider. */
export interface EmbeddingsCapability {
  create(call: EmbeddingsCall): Promise<EmbeddingsResult>;
}

/** The inputs of a call as a list (one entry per vector to return). */
export function inputList(input: EmbeddingInput): Array<string | number[]> {
  if (typeof input === 'string') return [input];
  if (input.length > 0 && typeof input[0] === 'number') return [input as number[]];
  return input as Array<string | number[]>;
}
