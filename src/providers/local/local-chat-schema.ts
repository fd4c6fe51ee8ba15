import { isRecord, type JsonRecord } from '../http/narrow.js';

/** Deepest nesting filled in; deeper objects are left empty. */
const MAX_DEPTH = 8;

/** Placeholder strings for common `format`s, so format-checking clients accept them. */
const FORMAT_SAMPLES: Readonly<Record<string, string>> = {
  email: 'user@example.com',
  date: '2024-01-01',
  'date-time': '2024-01-01T00:00:00Z',
  time: '00:00:00',
  uri: 'https://example.com',
  url: 'https://example.com',
  uuid: '00000000-0000-4000-8000-000000000000',
};

function firstType(schema: JsonRecord): string | undefined {
  if (typeof schema.type === 'string') return schema.type;
  if (Array.isArray(schema.type)) return schema.type.find((t): t is string => typeof t === 'string' && t !== 'null');
  if (isRecord(schema.properties)) return 'object';
  return undefined;
}

function sampleString(schema: JsonRecord, text: string): string {
  const format = typeof schema.format === 'string' ? FORMAT_SAMPLES[schema.format] : undefined;
  let value = format ?? text;
  const min = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const max = typeof schema.maxLength === 'number' ? schema.maxLength : Infinity;
  if (value.length < min) value = value.padEnd(min, 'x');
  return value.slice(0, max);
}

function sampleNumber(schema: JsonRecord, integer: boolean): number {
  const min = typeof schema.minimum === 'number' ? schema.minimum : typeof schema.exclusiveMinimum === 'number' ? schema.exclusiveMinimum + 1 : 0;
  const max = typeof schema.maximum === 'number' ? schema.maximum : Infinity;
  const value = Math.min(Math.max(min, integer ? 1 : 1.5), max);
  return integer ? Math.ceil(value) : value;
}

function sampleObject(schema: JsonRecord, text: string, depth: number): JsonRecord {
  const properties = isRecord(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === 'string') : [];
  // With nothing required, every declared property is filled so the answer is not empty.
  const names = required.length > 0 ? required : Object.keys(properties);
  const out: JsonRecord = {};
  for (const name of names) out[name] = sampleFromSchema(properties[name] ?? {}, text, depth + 1);
  return out;
}

/**
 * A deterministic value satisfying a simple JSON Schema: required properties filled by type,
 * first enum/const/anyOf option, bounds and lengths respected. `text` fills plain strings.
 * `$ref` and pattern constraints are not resolved.
 */
export function sampleFromSchema(schema: unknown, text: string, depth = 0): unknown {
  if (!isRecord(schema) || depth > MAX_DEPTH) return depth > MAX_DEPTH ? null : {};
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  const options = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(options) && options.length > 0) return sampleFromSchema(options[0], text, depth + 1);
  if (Array.isArray(schema.allOf) && schema.allOf.length > 0) return sampleFromSchema(schema.allOf[0], text, depth + 1);
  switch (firstType(schema)) {
    case 'string':
      return sampleString(schema, text);
    case 'integer':
      return sampleNumber(schema, true);
    case 'number':
      return sampleNumber(schema, false);
    case 'boolean':
      return true;
    case 'null':
      return null;
    case 'array': {
      const count = typeof schema.minItems === 'number' ? schema.minItems : 1;
      return Array.from({ length: count }, () => sampleFromSchema(schema.items ?? {}, text, depth + 1));
    }
    case 'object':
      return sampleObject(schema, text, depth);
    default:
      return {};
  }
}
