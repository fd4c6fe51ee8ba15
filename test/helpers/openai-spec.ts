import { readFileSync } from 'node:fs';
import { Ajv, type ValidateFunction } from 'ajv';

/** OpenAI's published OpenAPI description (MIT; copy, license and version in test/fixtures/specs). */
const SPEC_PATH = new URL('../fixtures/specs/openai-openapi.json', import.meta.url);

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

// The spec mixes OpenAPI 3.0 `nullable` into 3.1 schemas; Ajv only accepts `nullable`
// beside `type`, so rewrite it as a union with null everywhere.
function denullable(node: Json): Json {
  if (Array.isArray(node)) return node.map(denullable);
  if (node === null || typeof node !== 'object') return node;
  const out: { [key: string]: Json } = {};
  for (const [key, value] of Object.entries(node)) if (key !== 'nullable') out[key] = denullable(value);
  if (node.nullable !== true) return out;
  if (Array.isArray(out.enum)) out.enum = [...out.enum, null];
  if (typeof out.type === 'string') return { ...out, type: [out.type, 'null'] };
  if (Array.isArray(out.type)) return { ...out, type: [...out.type, 'null'] };
  return { anyOf: [out, { type: 'null' }] };
}

let ajv: Ajv | undefined;

/** Validator for `#/components/schemas/<name>` of the OpenAI spec. */
export function openAiSchema(name: string): ValidateFunction {
  if (ajv === undefined) {
    ajv = new Ajv({ strict: false, allErrors: true, logger: false });
    ajv.addFormat('unixtime', true);
    ajv.addSchema(denullable(JSON.parse(readFileSync(SPEC_PATH, 'utf8')) as Json) as object, 'openai');
  }
  const validate = ajv.getSchema(`openai#/components/schemas/${name}`);
  if (validate === undefined) throw new Error(`no schema ${name}`);
  return validate;
}

/** Human-readable errors of the last validation, for assertion messages. */
export function schemaErrors(validate: ValidateFunction): string {
  return JSON.stringify(validate.errors ?? [], null, 1).slice(0, 2000);
}
