/** One vector as OpenAI returns it. */
export interface EmbeddingWire {
  object: 'embedding';
  index: number;
  /** Floats, or base64 of little-endian float32 values when `encoding_format` is `base64`. */
  embedding: number[] | string;
}

/** OpenAI's embeddings response, plus `usage.cost` in USD (the shape of {@link embeddingsJson}'s bytes). */
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

/** What goes into an answer: vectors in input order and, when kept, the upstream's bytes of each. */
export interface AnswerVectors {
  vectors: readonly ArrayLike<number>[];
  raw?: readonly Buffer[];
}

function vectorJson(answer: AnswerVectors, index: number, format: 'float' | 'base64'): string | Buffer {
  // The upstream's own bytes first: reading `vectors` may parse every list (see the provider).
  const raw = format === 'float' ? answer.raw?.[index] : undefined;
  if (raw !== undefined) return raw;
  const vector = answer.vectors[index] ?? [];
  if (format === 'base64') return `"${base64Vector(vector)}"`;
  return JSON.stringify(Array.isArray(vector) ? vector : Array.from(vector));
}

/** Characters of vectors formatted between two yields to the event loop (a few milliseconds of work). */
const YIELD_EVERY_CHARS = 1_048_576;

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * The response body as UTF-8 JSON, in {@link EmbeddingsResponse}'s shape and OpenAI's field
 * order. Written by hand so float vectors can be the upstream's own bytes, copied once into the
 * answer: decoding, formatting and encoding tens of thousands of numbers again would be most of
 * an answer's CPU. Every other value goes through JSON.stringify. Yields to the event loop after
 * every megabyte of formatted vectors, so 2,048 long vectors never block other requests.
 */
export async function embeddingsJson(model: string, answer: AnswerVectors, format: 'float' | 'base64', usage: { promptTokens: number; cost: number }): Promise<Buffer> {
  const parts: Buffer[] = [];
  let text = '{"object":"list","data":[';
  let since = 0;
  const count = answer.raw?.length ?? answer.vectors.length;
  for (let index = 0; index < count; index++) {
    const vector = vectorJson(answer, index, format);
    text += `${index === 0 ? '' : ','}{"object":"embedding","index":${index},"embedding":`;
    if (typeof vector === 'string') {
      text += `${vector}}`;
      since += vector.length;
    } else {
      parts.push(Buffer.from(text), vector);
      text = '}';
    }
    if (since >= YIELD_EVERY_CHARS) {
      since = 0;
      await nextTurn();
    }
  }
  const tail = JSON.stringify({ prompt_tokens: usage.promptTokens, total_tokens: usage.promptTokens, cost: usage.cost });
  parts.push(Buffer.from(`${text}],"model":${JSON.stringify(model)},"usage":${tail}}`));
  return Buffer.concat(parts);
}
