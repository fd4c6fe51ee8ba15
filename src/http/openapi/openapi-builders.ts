import { z } from 'zod';

/** A JSON Schema (OpenAPI 3.1 uses JSON Schema 2020-12). */
export type Schema = Record<string, unknown>;

/** One operation of a path item. */
export type Operation = Record<string, unknown>;

/** Path items by OpenAPI path template (`/v1/keys/{key_id}`). */
export type Paths = Record<string, Record<string, Operation>>;

/** A reference to `#/components/schemas/<name>`. */
export const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });

/** A value that may also be null. */
export const nullable = (schema: Schema): Schema => ({ anyOf: [schema, { type: 'null' }] });

/** An object whose listed properties are all required; others may be added later without breaking clients. */
export function object(properties: Record<string, Schema>, optional: readonly string[] = []): Schema {
  return { type: 'object', properties, required: Object.keys(properties).filter((name) => !optional.includes(name)) };
}

/** Farebox's envelope: `{data: …}`, with any extra top-level fields (a key's secret, a cursor). */
export function envelope(data: Schema, extra: Record<string, Schema> = {}): Schema {
  return object({ data, ...extra });
}

/** A page of a list: `{data: [...], next_cursor}`. */
export function page(item: Schema): Schema {
  return envelope({ type: 'array', items: item }, { next_cursor: nullable({ type: 'string' }) });
}

/** A zod schema as the JSON Schema of what a client sends (defaults make fields optional). */
export function fromZod(schema: z.ZodType): Schema {
  const { $schema: _drop, ...json } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Schema;
  return json;
}

/** The query parameters of a zod object schema. */
export function queryOf(schema: z.ZodType): Schema[] {
  const json = fromZod(schema) as { properties?: Record<string, Schema>; required?: string[] };
  return Object.entries(json.properties ?? {}).map(([name, property]) => ({ name, in: 'query', required: json.required?.includes(name) ?? false, schema: property }));
}

/** A path parameter. */
export const pathParam = (name: string, description?: string): Schema => ({ name, in: 'path', required: true, schema: { type: 'string' }, ...(description ? { description } : {}) });

/** What an operation needs to be described. */
export interface OperationSpec {
  summary: string;
  tags: string[];
  /** Security scheme names; empty for none. */
  auth: readonly string[];
  status?: number;
  response?: Schema;
  /** Content type of the answer; JSON by default. */
  contentType?: string;
  body?: Schema;
  parameters?: Schema[];
  description?: string;
  /** Extra documented answers by status. */
  also?: Record<number, Schema>;
}

/** Builds one operation: its answer, Farebox's error shape for every other status, its auth. */
export function operation(spec: OperationSpec): Operation {
  const json = (schema: Schema, type = 'application/json') => ({ content: { [type]: { schema } } });
  const responses: Record<string, unknown> = {
    [String(spec.status ?? 200)]: { description: spec.summary, ...(spec.response ? json(spec.response, spec.contentType) : {}) },
  };
  for (const [status, schema] of Object.entries(spec.also ?? {})) responses[status] = { description: `Also ${status}`, ...json(schema) };
  responses.default = { $ref: '#/components/responses/Error' };
  return {
    summary: spec.summary,
    ...(spec.description ? { description: spec.description } : {}),
    tags: spec.tags,
    security: spec.auth.length === 0 ? [] : spec.auth.map((name) => ({ [name]: [] })),
    ...(spec.parameters?.length ? { parameters: spec.parameters } : {}),
    ...(spec.body ? { requestBody: { required: true, ...json(spec.body) } } : {}),
    responses,
  };
}

/** Adds an operation to `paths`. */
export function add(paths: Paths, method: string, path: string, spec: OperationSpec): void {
  const params = [...path.matchAll(/\{([^}]+)\}/g)].map((match) => pathParam(match[1] ?? ''));
  (paths[path] ??= {})[method] = operation({ ...spec, parameters: [...params, ...(spec.parameters ?? [])] });
}
