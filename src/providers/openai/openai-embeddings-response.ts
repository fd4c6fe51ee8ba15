import { GatewayError } from '../../platform/errors/index.js';
import type { EmbeddingsResult } from '../embeddings/embeddings-types.js';
import { cutVectorLists } from '../embeddings/vector-skeleton.js';
import { arrayAt, isRecord, numberAt, recordAt } from '../http/narrow.js';

function garbage(why: string): GatewayError {
  return new GatewayError('upstream_error', `The upstream answered an embeddings request with an unusable body (${why}).`);
}

/** A float array, or a base64 string of little-endian float32s (OpenAI's `encoding_format: base64`). */
function vectorOf(value: unknown): ArrayLike<number> {
  if (typeof value === 'string') {
    const bytes = Buffer.from(value, 'base64');
    if (bytes.length % 4 !== 0) throw garbage('a base64 vector is not a whole number of float32 values');
    const out = new Float32Array(bytes.length / 4);
    for (let i = 0; i < out.length; i++) out[i] = bytes.readFloatLE(i * 4);
    return out;
  }
  if (!Array.isArray(value) || !value.every((x) => typeof x === 'number' && Number.isFinite(x))) throw garbage('a vector is not a list of numbers');
  return value as number[];
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new GatewayError('upstream_error', 'The upstream provider answered with invalid JSON', { cause: err });
  }
}

/** `usage.prompt_tokens` when it is a plausible count. */
function promptTokensOf(body: unknown): number | undefined {
  const prompt = numberAt(recordAt(body, 'usage'), 'prompt_tokens');
  return prompt !== undefined && Number.isInteger(prompt) && prompt >= 0 ? prompt : undefined;
}

/**
 * The float lists in input order when the skeleton's `data` holds exactly the cut-out lists,
 * the k-th item's `embedding` being the number k; undefined for anything else (the full parse
 * then decides what the body is).
 */
function listsInInputOrder(body: unknown, lists: readonly Buffer[], inputs: number): Buffer[] | undefined {
  const data = arrayAt(body, 'data');
  if (data === undefined || data.length !== inputs || lists.length !== inputs) return undefined;
  const out = new Array<Buffer | undefined>(inputs).fill(undefined);
  for (const [position, item] of data.entries()) {
    if (!isRecord(item) || item.embedding !== position) return undefined;
    const index = numberAt(item, 'index') ?? position;
    if (!Number.isInteger(index) || index < 0 || index >= inputs || out[index] !== undefined) return undefined;
    out[index] = lists[position];
  }
  return out as Buffer[];
}

/**
 * Maps an OpenAI-compatible embeddings body, as bytes, to vectors in input order. The usual
 * answer, float lists of plain numbers, is parsed without its vectors: they are kept as the
 * upstream's bytes (`raw`), and `vectors` parses them only when something reads it (a base64
 * answer). Any other body goes through the full parse and checks of {@link fromOpenAiEmbeddings}.
 */
export function fromOpenAiEmbeddingsBytes(bytes: Buffer, inputs: number): EmbeddingsResult {
  const cut = cutVectorLists(bytes);
  const body = cut === undefined ? undefined : parseJson(cut.skeleton);
  const raw = cut === undefined ? undefined : listsInInputOrder(body, cut.lists, inputs);
  if (raw === undefined) return fromOpenAiEmbeddings(parseJson(bytes.toString('utf8')), inputs);
  let vectors: number[][] | undefined;
  const promptTokens = promptTokensOf(body);
  return {
    get vectors(): number[][] {
      return (vectors ??= raw.map((list) => JSON.parse(list.toString('latin1')) as number[]));
    },
    raw,
    ...(promptTokens === undefined ? {} : { promptTokens }),
  };
}

/**
 * Maps an OpenAI-compatible embeddings response to vectors in input order. `data` may come in
 * any order (it carries `index`); a response with fewer or more vectors than inputs, or with
 * a repeated index, is garbage. `usage.prompt_tokens` is optional: some compatible servers
 * (older vLLM, Ollama) leave usage out, and the gateway then bills its own count.
 */
export function fromOpenAiEmbeddings(body: unknown, inputs: number): EmbeddingsResult {
  const data = arrayAt(body, 'data');
  if (data === undefined) throw garbage('no data list');
  if (data.length !== inputs) throw garbage(`${data.length} vectors for ${inputs} inputs`);
  const vectors: Array<ArrayLike<number> | undefined> = new Array<ArrayLike<number> | undefined>(inputs).fill(undefined);
  data.forEach((item, position) => {
    if (!isRecord(item)) throw garbage('a data item is not an object');
    const index = numberAt(item, 'index') ?? position;
    if (!Number.isInteger(index) || index < 0 || index >= inputs || vectors[index] !== undefined) throw garbage('bad or repeated index');
    vectors[index] = vectorOf(item.embedding);
  });
  const promptTokens = promptTokensOf(body);
  return { vectors: vectors as ArrayLike<number>[], ...(promptTokens === undefined ? {} : { promptTokens }) };
}
