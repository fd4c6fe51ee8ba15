import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { openApiDocument } from '../../src/http/openapi/openapi-document.js';
import { schemaErrors } from './openai-spec.js';
import type { RecordedDocument, SpecProblem } from './spec-recorder.js';

interface OperationDoc {
  responses: Record<string, { $ref?: string; content?: Record<string, { schema: object }> }>;
}

type PathItems = Record<string, Record<string, OperationDoc>>;

let ajv: Ajv2020 | undefined;

function validator(): Ajv2020 {
  if (ajv === undefined) {
    // Formats (date-time, …) are descriptive here; the shapes and types are what is checked.
    ajv = new Ajv2020({ strict: false, allErrors: true, logger: false, validateFormats: false });
    ajv.addSchema(openApiDocument(), 'farebox');
  }
  return ajv;
}

/** The document's path template matching a concrete path (literal segments win over parameters). */
export function templateFor(path: string): string | undefined {
  const paths = openApiDocument().paths as PathItems;
  const matches = Object.keys(paths).filter((template) => {
    const pattern = template.replace(/[.]/g, '\\.').replace(/\{[^}]+\}/g, '[^/]+');
    return new RegExp(`^${pattern}$`).test(path);
  });
  const params = (t: string) => (t.match(/\{/g) ?? []).length;
  return matches.sort((a, b) => params(a) - params(b))[0];
}

const pointer = (...parts: string[]) => parts.map((p) => encodeURIComponent(p.replaceAll('~', '~0').replaceAll('/', '~1'))).join('/');

/**
 * Validator of the JSON answer Farebox's document gives for this method, path and status (the
 * status's own entry, else `default`: the error shape); undefined when the route or its JSON
 * answer is not described there.
 */
export function fareboxSchemaFor(method: string, path: string, status: number): ValidateFunction | undefined {
  const template = templateFor(path);
  if (template === undefined) return undefined;
  const operation = (openApiDocument().paths as PathItems)[template]?.[method.toLowerCase()];
  if (operation === undefined) return undefined;
  const key = String(status) in operation.responses ? String(status) : 'default';
  const response = operation.responses[key];
  if (response?.$ref !== undefined) return validator().getSchema('farebox#/components/schemas/Error');
  if (response?.content?.['application/json'] === undefined) return undefined;
  return validator().getSchema(`farebox#/${pointer('paths', template, method.toLowerCase(), 'responses', key, 'content', 'application/json', 'schema')}`);
}

/** Checks each recorded JSON answer against Farebox's document; returns what failed. */
export function fareboxSpecProblems(documents: readonly RecordedDocument[]): SpecProblem[] {
  const problems: SpecProblem[] = [];
  for (const doc of documents) {
    if (doc.part !== 'body') continue;
    const validate = fareboxSchemaFor(doc.method, doc.path, doc.status);
    if (validate === undefined) continue;
    if (!validate(doc.json)) {
      problems.push({ where: `${doc.method} ${doc.path} ${doc.status}: ${JSON.stringify(doc.json).slice(0, 300)}`, schema: 'farebox', errors: schemaErrors(validate) });
    }
  }
  return problems;
}
