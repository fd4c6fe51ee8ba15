import { isRecord, type JsonRecord } from '../http/narrow.js';

/** Deepest nesting filled in; deeper objects are left empty. */
const MAX_DEPTH = 8;
/** Characters of JSON a sample may take at most when the caller sets no smaller budget. */
export const MAX_SAMPLE_CHARS = 65_536;

/**
 * Characters a sample may still use. Every value generated spends from it before anything is
 * allocated, so `minLength: 2e6` or `minItems: 1e8` stop at the budget instead of building
 * (or looping over) what the schema asks for; the caller then cuts the answer at max_tokens.
 */
export class SampleBudget {
  constructor(public left: number) {}

  /** Takes up to `wanted` characters; returns how many were granted. */
  take(wanted: number): number {
    const granted = Math.max(0, Math.min(wanted, this.left));
    this.left -= granted;
    return granted;
  }

  get exhausted(): boolean {
    return this.left <= 0;
  }
}

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

function sampleString(schema: JsonRecord, text: string, budget: SampleBudget): string {
  const format = typeof schema.format === 'string' ? FORMAT_SAMPLES[schema.format] : undefined;
  const base = format ?? text;
  const min = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const max = typeof schema.maxLength === 'number' ? Math.max(0, schema.maxLength) : Infinity;
  const wanted = Math.min(max, Math.max(min, base.length));
  // The length is granted by the budget first, so no huge string is ever allocated.
  const length = budget.take(wanted + 2) - 2;
  if (length <= 0) return '';
  return base.length >= length ? base.slice(0, length) : base.padEnd(length, 'x');
}

function sampleNumber(schema: JsonRecord, integer: boolean): number {
  const min = typeof schema.minimum === 'number' ? schema.minimum : typeof schema.exclusiveMinimum === 'number' ? schema.exclusiveMinimum + 1 : 0;
  const max = typeof schema.maximum === 'number' ? schema.maximum : Infinity;
  const value = Math.min(Math.max(min, integer ? 1 : 1.5), max);
  return integer ? Math.ceil(value) : value;
}

function sampleArray(schema: JsonRecord, text: string, depth: number, budget: SampleBudget): unknown[] {
  const count = typeof schema.minItems === 'number' ? schema.minItems : 1;
  const out: unknown[] = [];
  // Each item spends at least its separator, so the loop ends within the budget.
  for (let i = 0; i < count && budget.take(1) === 1; i++) out.push(sampleFromSchema(schema.items ?? {}, text, depth + 1, budget));
  return out;
}

function sampleObject(schema: JsonRecord, text: string, depth: number, budget: SampleBudget): JsonRecord {
  const properties = isRecord(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === 'string') : [];
  // With nothing required, every declared property is filled so the answer is not empty.
  const names = required.length > 0 ? required : Object.keys(properties);
  const out: JsonRecord = {};
  for (const name of names) {
    if (budget.take(name.length + 4) < name.length + 4) break;
    out[name] = sampleFromSchema(properties[name] ?? {}, text, depth + 1, budget);
  }
  return out;
}

/**
 * A deterministic value satisfying a simple JSON Schema: required properties filled by type,
 * first enum/const/anyOf option, bounds and lengths respected while the character budget
 * lasts (then strings, arrays and objects are cut short). `text` fills plain strings.
 * `$ref` and pattern constraints are not resolved.
 */
export function sampleFromSchema(schema: unknown, text: string, depth = 0, budget = new SampleBudget(MAX_SAMPLE_CHARS)): unknown {
  if (!isRecord(schema) || depth > MAX_DEPTH) return depth > MAX_DEPTH ? null : {};
  // const and enum values come from the request itself, whose size the edge bounds.
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  const options = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(options) && options.length > 0) return sampleFromSchema(options[0], text, depth + 1, budget);
  if (Array.isArray(schema.allOf) && schema.allOf.length > 0) return sampleFromSchema(schema.allOf[0], text, depth + 1, budget);
  budget.take(8);
  switch (firstType(schema)) {
    case 'string':
      return sampleString(schema, text, budget);
    case 'integer':
      return sampleNumber(schema, true);
    case 'number':
      return sampleNumber(schema, false);
    case 'boolean':
      return true;
    case 'null':
      return null;
    case 'array':
      return sampleArray(schema, text, depth, budget);
    case 'object':
      return sampleObject(schema, text, depth, budget);
    default:
      return {};
  }
}
