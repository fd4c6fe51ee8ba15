/**
 * The JSON text of each float vector in an upstream's embeddings body, so the gateway can send
 * the upstream's own digits instead of formatting thousands of numbers again (writing floats
 * is most of an embeddings answer's CPU). Only used when every check passes; otherwise the
 * vectors are serialized from the parsed values, which is always correct.
 */

const KEY = /"embedding"\s*:\s*\[/g;

/** Commas in `text`: a list of n numbers has n − 1. */
function commas(text: string): number {
  let n = 0;
  for (let at = text.indexOf(','); at >= 0; at = text.indexOf(',', at + 1)) n += 1;
  return n;
}

/** Whether a raw list holds the parsed vector: same count and same first and last values. */
function matches(raw: string, vector: ArrayLike<number>): boolean {
  if (vector.length === 0 || raw.includes('"') || commas(raw) !== vector.length - 1) return false;
  const first = raw.slice(0, raw.indexOf(',') >= 0 ? raw.indexOf(',') : raw.length);
  const last = raw.slice(raw.lastIndexOf(',') + 1);
  return Number(first) === vector[0] && Number(last) === vector[vector.length - 1];
}

/**
 * The raw `[…]` texts of the `embedding` lists of `text`, in the order of `ordered` (the
 * parsed vectors by their position in `data`), or undefined when the text holds any other
 * `"embedding":[` list or a list does not match its parsed vector.
 */
export function rawVectors(text: string, ordered: readonly ArrayLike<number>[]): string[] | undefined {
  const out: string[] = [];
  KEY.lastIndex = 0;
  for (let match = KEY.exec(text); match !== null; match = KEY.exec(text)) {
    const start = match.index + match[0].length;
    const end = text.indexOf(']', start);
    const vector = ordered[out.length];
    if (end < 0 || vector === undefined) return undefined;
    const raw = text.slice(start, end);
    if (!matches(raw, vector)) return undefined;
    out.push(`[${raw.trim()}]`);
    KEY.lastIndex = end + 1;
  }
  return out.length === ordered.length ? out : undefined;
}
