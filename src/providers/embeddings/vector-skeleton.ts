/**
 * An embeddings body with its float lists cut out, so only the small rest is parsed. Parsing
 * 25,600 floats into doubles (and checking each) is most of what a 100-vector answer costs,
 * and a float answer relays the upstream's digits anyway (see raw-vectors). A list is cut out
 * only when it is plainly a list of JSON numbers that are finite as doubles; anything else
 * leaves the body to the full parse, which is always correct.
 */

const KEY = /"embedding"\s*:\s*\[/g;

/**
 * One JSON number whose value is finite: at most 21 integer digits and a two-digit exponent
 * (below 1e122). Longer forms (`1e400` is Infinity) are left to the full parse.
 */
const NUMBER = String.raw`-?(?:0|[1-9]\d{0,20})(?:\.\d+)?(?:[eE][+-]?\d{1,2})?`;
/** JSON's own whitespace only: the list is relayed as it came, so it must be JSON as it stands. */
const SPACE = String.raw`[ \t\n\r]*`;
const NUMBER_LIST = new RegExp(`^${SPACE}${NUMBER}(?:${SPACE},${SPACE}${NUMBER})*${SPACE}$`);

/** A body whose float lists were replaced by their position. */
export interface VectorSkeleton {
  /** The body with the k-th cut-out list replaced by the number k. */
  skeleton: string;
  /** The cut-out lists as `[…]` texts, in the order they appear. */
  lists: string[];
}

/**
 * Cuts every `"embedding": [numbers]` list out of `text`; undefined when one of them is not a
 * plain list of finite numbers (a base64 vector is a string, so it stays in the skeleton).
 * Which cut-outs really are the `data[i].embedding` values is for the caller to check against
 * the parsed skeleton: the k-th item's embedding must be the number k, for every k.
 */
export function cutVectorLists(text: string): VectorSkeleton | undefined {
  const parts: string[] = [];
  const lists: string[] = [];
  let from = 0;
  KEY.lastIndex = 0;
  for (let match = KEY.exec(text); match !== null; match = KEY.exec(text)) {
    const open = match.index + match[0].length - 1;
    const close = text.indexOf(']', open);
    if (close < 0) return undefined;
    const inner = text.slice(open + 1, close);
    if (!NUMBER_LIST.test(inner)) return undefined;
    parts.push(text.slice(from, open), String(lists.length));
    lists.push(`[${inner.trim()}]`);
    from = close + 1;
    KEY.lastIndex = from;
  }
  parts.push(text.slice(from));
  return { skeleton: parts.join(''), lists };
}
