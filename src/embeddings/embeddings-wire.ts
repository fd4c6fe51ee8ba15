/** One vector as OpenAI returns it. */
export interface EmbeddingWire {
  object: 'embedding';
  index: number;
  /** Floats, or base64 of little-endian float32 values when `encoding_format` is `base64`. */
  embedding: number[] | string;
}

/** OpenAI's embeddings response, plus `usage.cost` in USD (the shape of {@link embeddingsJson}'s text). */
export interface EmbeddingsResponse {
  object: 'list';
  data: EmbeddingWire[];
  model: string;
  usage: { prompt_tokens: number; total_tokens: number; cost: number };
}

/** Little-endian float32 bytes, base64: what OpenAI's SDKs decode for `encoding_format: base64`. */
export function base64Vector(vector: ArrayLike<number>): string {
  const bytes = Buffer.allocUnsafe(vector.length * 4);
  for (let i = 0; i < vector.length; i++) bytes.writeFloatLE(vector[i] ?? 0, i * 4);
  return bytes.toString('base64');
}

/** What goes into an answer: vectors in input order and, when kept, the upstream's text of each. */
export interface AnswerVectors {
  vectors: readonly ArrayLike<number>[];
  raw?: readonly string[];
}

function vectorJson(answer: AnswerVectors, index: number, format: 'float' | 'base64'): string {
  // The upstream's own text first: reading `vectors` may parse every list (see the provider).
  const raw = format === 'float' ? answer.raw?.[index] : undefined;
  if (raw !== undefined) return raw;
  const vector = answer.vectors[index] ?? [];
  if (format === 'base64') return `"${base64Vector(vector)}"`;
  return JSON.stringify(Array.isArray(vector) ? vector : Array.from(vector));
}

/** Characters of vectors written between two yields to the event loop (a few milliseconds of work). */
const YIELD_EVERY_CHARS = 1_048_576;

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * The response body as JSON text, in {@link EmbeddingsResponse}'s shape and OpenAI's field
 * order. Written by hand so float vectors can be the upstream's own text (formatting tens of
 * thousands of numbers again is most of an answer's CPU); every other value goes through
 * JSON.stringify. Yields to the event loop after every megabyte of vectors, so 2,048 long vectors
 * never block other requests.
 */
export async function embeddingsJson(model: string, answer: AnswerVectors, format: 'float' | 'base64', usage: { promptTokens: number; cost: number }): Promise<string> {
  const data: string[] = [];
  let since = 0;
  const count = answer.raw?.length ?? answer.vectors.length;
  for (let index = 0; index < count; index++) {
    const vector = vectorJson(answer, index, format);
    data.push(`{"object":"embedding","index":${index},"embedding":${vector}}`);
    since += vector.length;
    if (since >= YIELD_EVERY_CHARS) {
      since = 0;
      await nextTurn();
    }
  }
  const tail = JSON.stringify({ prompt_tokens: usage.promptTokens, total_tokens: usage.promptTokens, cost: usage.cost });
  return `{"object":"list","data":[${data.join(',')}],"model":${JSON.stringify(model)},"usage":${tail}}`;
}
