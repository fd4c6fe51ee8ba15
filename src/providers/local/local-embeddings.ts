import { decode } from 'gpt-tokenizer/encoding/o200k_base';
import { GatewayError } from '../../platform/errors/index.js';
import type { EmbeddingsCall, EmbeddingsCapability, EmbeddingsResult } from '../embeddings/embeddings-types.js';
import { inputList } from '../embeddings/embeddings-types.js';
import { throwIfCancelled } from './local-image-cancel.js';
import { forEachFeature } from './local-embed-features.js';
import { addFeature, hashFeature, l2Normalise } from './local-embed-projection.js';

/** Vector length when the request names none. */
export const LOCAL_EMBEDDING_DIMENSIONS = 384;
/** Longest vector the local model makes (a bound on one request's memory and CPU). */
export const LOCAL_MAX_DIMENSIONS = 4_096;
/** Most values one request may ask for (inputs × dimensions): about 40 MB of JSON floats. */
export const LOCAL_MAX_VALUES = 2_048 * 1_024;
/** Characters embedded between two yields to the event loop (a few milliseconds of work). */
const YIELD_EVERY_CHARS = 8_192;

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Token ids become text again (o200k_base), so a tokenised input embeds like its text. */
function textOfTokens(tokens: readonly number[]): string {
  const parts: string[] = [];
  for (const token of tokens) {
    try {
      parts.push(decode([token]));
    } catch {
      // An id outside the vocabulary still says something: it becomes a feature of its own.
      parts.push(` #${token} `);
    }
  }
  return parts.join('');
}

/** Embeds one text: hashed word, bigram and character n-gram features, projected, unit length. */
export function embedText(text: string, dimensions: number = LOCAL_EMBEDDING_DIMENSIONS): Float32Array {
  const sum = new Float64Array(dimensions);
  forEachFeature(text, (feature, weight) => addFeature(sum, hashFeature(feature), weight));
  return l2Normalise(sum);
}

/**
 * The local embedding model (provider kind `local`, upstream model `hashed-ngrams`): a
 * classical, offline model with no weights to download. Texts that share words, word pairs
 * and word pieces get close vectors, so it ranks lexical paraphrases and near-duplicates
 * above unrelated text; it knows no synonyms. Usage is not reported: the gateway bills its
 * own exact token count, which is what it held.
 */
export function createLocalEmbeddings(): EmbeddingsCapability {
  return {
    async create(call: EmbeddingsCall): Promise<EmbeddingsResult> {
      const dimensions = call.dimensions ?? LOCAL_EMBEDDING_DIMENSIONS;
      if (!Number.isInteger(dimensions) || dimensions < 1 || dimensions > LOCAL_MAX_DIMENSIONS) {
        throw new GatewayError('invalid_request', `dimensions: the local model makes 1 to ${LOCAL_MAX_DIMENSIONS} dimensions`, { param: 'dimensions' });
      }
      const inputs = inputList(call.input);
      if (inputs.length * dimensions > LOCAL_MAX_VALUES) {
        throw new GatewayError('invalid_request', `dimensions: the local model returns at most ${LOCAL_MAX_VALUES} values per request (inputs × dimensions)`, { param: 'dimensions' });
      }
      const vectors: Float32Array[] = [];
      let since = 0;
      for (const input of inputs) {
        throwIfCancelled(call.signal);
        const text = typeof input === 'string' ? input : textOfTokens(input);
        vectors.push(embedText(text, dimensions));
        since += text.length;
        if (since >= YIELD_EVERY_CHARS) {
          since = 0;
          await nextTurn();
        }
      }
      return { vectors };
    },
  };
}
