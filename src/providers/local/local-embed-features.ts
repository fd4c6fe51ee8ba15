/**
 * Features of the local embedding model: words, word bigrams and the character n-grams of
 * each word (fastText-style, with boundary marks), each with a weight. Everything is linear in
 * the text: one scan for words, a bounded number of n-grams per word.
 */

/** Shortest and longest character n-gram taken from a word. */
const MIN_GRAM = 3;
const MAX_GRAM = 5;
/** Longer words (hashes, blobs) contribute only their first characters' n-grams. */
const MAX_WORD_CHARS = 32;

/** Weights: whole words carry most meaning; n-grams catch inflections and typos. */
const WORD_WEIGHT = 1;
const BIGRAM_WEIGHT = 0.5;
const GRAM_WEIGHT = 0.25;
/** Function words say little about meaning; they still count, lightly. */
const STOPWORD_WEIGHT = 0.1;

// prettier-ignore
const STOPWORDS: ReadonlySet<string> = new Set([
  'a', 'an', 'the', 'and', 'or', 'but', 'of', 'to', 'in', 'on', 'at', 'by', 'for', 'with', 'from', 'as', 'is', 'are',
  'was', 'were', 'be', 'been', 'being', 'it', 'its', 'this', 'that', 'these', 'those', 'i', 'you', 'he', 'she', 'we',
  'they', 'me', 'him', 'her', 'us', 'them', 'my', 'your', 'his', 'our', 'their', 'do', 'does', 'did', 'have', 'has',
  'had', 'not', 'no', 'so', 'if', 'then', 'than', 'there', 'here', 'what', 'which', 'who', 'how', 'when', 'where',
  'can', 'will', 'would', 'should', 'could', 'may', 'might', 'very', 'just', 'about', 'into', 'over', 'up', 'out',
]);

const WORDS = /[\p{L}\p{N}]+(?:'[\p{L}]+)?/gu;

/** A light suffix strip so "running", "runs" and "run" share their word feature. */
function stem(word: string): string {
  if (word.length > 5 && word.endsWith('ing')) return word.slice(0, -3);
  if (word.length > 4 && word.endsWith('ed')) return word.slice(0, -2);
  if (word.length > 4 && word.endsWith('es')) return word.slice(0, -2);
  if (word.length > 3 && word.endsWith('s') && !word.endsWith('ss')) return word.slice(0, -1);
  return word;
}

/** Calls `emit` with each feature of a text and its weight. */
export function forEachFeature(text: string, emit: (feature: string, weight: number) => void): void {
  let previous: string | undefined;
  for (const match of text.normalize('NFKC').toLowerCase().matchAll(WORDS)) {
    const word = match[0].replace(/'s$/, '');
    const stop = STOPWORDS.has(word);
    const root = stem(word);
    emit(`w:${root}`, stop ? STOPWORD_WEIGHT : WORD_WEIGHT);
    if (previous !== undefined && !stop) emit(`b:${previous} ${root}`, BIGRAM_WEIGHT);
    if (!stop) {
      previous = root;
      const marked = `<${word.slice(0, MAX_WORD_CHARS)}>`;
      for (let n = MIN_GRAM; n <= MAX_GRAM; n++) {
        for (let i = 0; i + n <= marked.length; i++) emit(`g:${marked.slice(i, i + n)}`, GRAM_WEIGHT);
      }
    }
  }
}
