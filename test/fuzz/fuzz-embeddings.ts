import fc from 'fast-check';
import { anyJson, bearer, contentType, jsonBody, maybeNumber, model, request, text, type FuzzKeys, type FuzzRequest } from './fuzz-arbitraries.js';

const tokenId = fc.oneof({ weight: 6, arbitrary: fc.nat({ max: 250_000 }) }, { weight: 1, arbitrary: fc.integer() }, { weight: 1, arbitrary: fc.double() });
/** Texts a tokenizer finds hard: long runs of one character, odd code points, long unbroken words. */
const hardText = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 200 }),
  fc.tuple(fc.constantFrom('a', 'é', '9', ' ', '\n', '🙂', '<|endoftext|>'), fc.integer({ min: 1, max: 40_000 })).map(([c, n]) => c.repeat(n)),
  fc.string({ unit: 'grapheme', maxLength: 300 }),
);

/** Every shape OpenAI accepts for `input`. */
const validInput = fc.oneof(
  text(200).filter((t) => t.length > 0),
  fc.array(text(80).filter((t) => t.length > 0), { minLength: 1, maxLength: 30 }),
  fc.array(fc.nat({ max: 199_000 }), { minLength: 1, maxLength: 60 }),
  fc.array(fc.array(fc.nat({ max: 199_000 }), { minLength: 1, maxLength: 20 }), { minLength: 1, maxLength: 8 }),
);

/** A valid request for the local embedding model, which the fuzz then mutates field by field. */
const validEmbeddings = fc.record(
  {
    model: fc.constant('local/hashed-ngrams'),
    input: validInput,
    encoding_format: fc.constantFrom('float', 'base64'),
    dimensions: fc.integer({ min: 1, max: 384 }),
    user: text(20),
  },
  { requiredKeys: ['model', 'input'] },
);

/** Any embeddings-shaped record, each field possibly the wrong type or hostile. */
const wildEmbeddings = fc.record(
  {
    model,
    input: fc.oneof(
      anyJson,
      hardText,
      fc.array(fc.oneof(text(40), tokenId, fc.array(tokenId, { maxLength: 5 }), fc.constant(null), hardText), { maxLength: 6 }),
      fc.integer({ min: 2_040, max: 2_060 }).map((n) => Array.from({ length: n }, (_, i) => `item ${i}`)),
      fc.array(fc.array(tokenId, { maxLength: 3 }), { maxLength: 3 }),
    ),
    encoding_format: fc.oneof(fc.constantFrom('float', 'base64', 'int8', ''), anyJson),
    dimensions: maybeNumber(-1, 70_000),
    user: fc.oneof(text(20), fc.integer(), anyJson),
  },
  { requiredKeys: [] },
);

const mutatedEmbeddings = fc.tuple(validEmbeddings, wildEmbeddings, fc.constantFrom('model', 'input', 'encoding_format', 'dimensions', 'user')).map(
  ([valid, wild, field]) => ({ ...valid, [field]: (wild as Record<string, unknown>)[field] }),
);

/** `POST /v1/embeddings`: valid, mutated and wild bodies, with funded, free-tier and management keys. */
export function embeddingsRequests(keys: FuzzKeys): fc.Arbitrary<FuzzRequest> {
  const body = fc.oneof({ weight: 3, arbitrary: validEmbeddings }, { weight: 4, arbitrary: mutatedEmbeddings }, { weight: 2, arbitrary: wildEmbeddings });
  return fc
    .tuple(bearer(keys, ['funded', 'funded', 'freeTier', 'management']), jsonBody(body), contentType)
    .map(([key, raw, type]) => request('POST', '/v1/embeddings', key, raw, type));
}
