/**
 * A fixed, seeded sparse random projection (the "very sparse" Johnson-Lindenstrauss kind):
 * every hashed feature is a column with a few ±1 entries at pseudo-random rows. The same
 * feature always lands on the same rows with the same signs, in any process, so vectors are
 * deterministic and comparable across calls, and any output length can be asked for.
 */

/** Non-zero entries per feature column. */
const ENTRIES_PER_FEATURE = 8;
/** The projection's seed: changing it changes every vector (a different model). */
export const PROJECTION_SEED = 0x5eed_fb0c;

/** FNV-1a over UTF-16 code units, seeded: a 32-bit hash of a feature. */
export function hashFeature(feature: string, seed = PROJECTION_SEED): number {
  let h = (0x811c9dc5 ^ seed) >>> 0;
  for (let i = 0; i < feature.length; i++) {
    h ^= feature.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/** mulberry32 step: the next 32-bit value of a small, well-mixed generator. */
function next(state: number): number {
  let t = (state + 0x6d2b79f5) >>> 0;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return (t ^ (t >>> 14)) >>> 0;
}

/** Adds `weight` times a feature's column to `out`. */
export function addFeature(out: Float64Array, hash: number, weight: number): void {
  let state = hash;
  for (let k = 0; k < ENTRIES_PER_FEATURE; k++) {
    state = next(state);
    const row = state % out.length;
    out[row] = (out[row] ?? 0) + (state & 0x8000_0000 ? -weight : weight);
  }
}

/** The vector scaled to unit length (cosine similarity becomes a dot product); zeros stay zeros. */
export function l2Normalise(v: Float64Array): Float32Array {
  let sum = 0;
  for (const x of v) sum += x * x;
  const scale = sum > 0 ? 1 / Math.sqrt(sum) : 0;
  const out = new Float32Array(v.length);
  for (let i = 0; i < v.length; i++) out[i] = (v[i] ?? 0) * scale;
  return out;
}
