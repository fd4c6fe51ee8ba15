/**
 * A value in canonical form: object keys sorted, bigint and Date as strings, absent and null
 * fields left out (MongoDB may store an undefined field as null, and either way the value says
 * the same).
 */
function canonicalValue(value: unknown): unknown {
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map(canonicalValue);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      const v = (value as Record<string, unknown>)[key];
      if (v !== undefined && v !== null) out[key] = canonicalValue(v);
    }
    return out;
  }
  return value;
}

/** Canonical JSON text of a value: the same value always gives the same bytes. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(canonicalValue(value));
}
