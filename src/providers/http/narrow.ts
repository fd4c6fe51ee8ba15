/** Small guards for reading vendor JSON, which arrives as `unknown`. */

/** A plain JSON object. */
export type JsonRecord = Record<string, unknown>;

/** True for non-null, non-array objects. */
export function isRecord(value: unknown): value is JsonRecord {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The field as a record, or undefined. */
export function recordAt(value: unknown, key: string): JsonRecord | undefined {
  if (!isRecord(value)) return undefined;
  const found = value[key];
  return isRecord(found) ? found : undefined;
}

/** The field as a string, or undefined. */
export function stringAt(value: unknown, key: string): string | undefined {
  if (!isRecord(value)) return undefined;
  const found = value[key];
  return typeof found === 'string' ? found : undefined;
}

/** The field as a finite number, or undefined. */
export function numberAt(value: unknown, key: string): number | undefined {
  if (!isRecord(value)) return undefined;
  const found = value[key];
  return typeof found === 'number' && Number.isFinite(found) ? found : undefined;
}

/** The field as an array, or undefined. */
export function arrayAt(value: unknown, key: string): unknown[] | undefined {
  if (!isRecord(value)) return undefined;
  const found = value[key];
  return Array.isArray(found) ? found : undefined;
}
