import type { ValidateFunction } from 'ajv';
import { openAiSchema, schemaErrors } from './openai-spec.js';

/** One JSON document Farebox answered: a whole body, or one SSE chunk of a stream. */
export interface RecordedDocument {
  method: string;
  path: string;
  status: number;
  /** `body` for a JSON answer, `chunk` for one `data:` event of a stream. */
  part: 'body' | 'chunk';
  json: unknown;
}

/** A document that failed its schema. */
export interface SpecProblem {
  where: string;
  schema: string;
  errors: string;
}

/**
 * Adds what one answer carried to `documents`: its JSON body, or each `data:` chunk of an SSE
 * body. Bodies that are neither (or do not parse) are left out.
 */
export function recordAnswer(documents: RecordedDocument[], method: string, path: string, status: number, contentType: string, text: string): void {
  const parse = (data: string): unknown => {
    try {
      return JSON.parse(data) as unknown;
    } catch {
      return undefined;
    }
  };
  if (contentType.includes('text/event-stream')) {
    for (const line of text.split('\n')) {
      if (!line.startsWith('data:')) continue;
      const json = parse(line.slice(5).trim());
      if (json !== undefined) documents.push({ method, path, status, part: 'chunk', json });
    }
  } else if (contentType.includes('application/json')) {
    const json = parse(text);
    if (json !== undefined) documents.push({ method, path, status, part: 'body', json });
  }
}

/**
 * Every answer the shared test helpers (`call`, `streamChat`) received from a gateway in this
 * test file; checked against the spec after the file's tests (test/setup/spec-conformance.ts).
 */
export const answeredDocuments: RecordedDocument[] = [];

/**
 * Records every JSON answer and every stream chunk that passes through a `fetch`, so client
 * libraries (openai, AI SDK, LangChain) can be given this fetch and everything they received
 * checked against OpenAI's spec afterwards. Bodies are read from a clone, next to the client.
 */
export class SpecRecorder {
  private readonly pending: Array<Promise<void>> = [];

  /** @param documents where recorded documents go (a fresh list by default). */
  constructor(readonly documents: RecordedDocument[] = []) {}

  /** A fetch that records what it returns. */
  readonly fetch: typeof globalThis.fetch = async (input, init) => {
    const response = await globalThis.fetch(input, init);
    // Read from the arguments: building a Request would consume a streamed (multipart) body.
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
    const path = new URL(url).pathname;
    const copy = response.clone();
    this.pending.push(
      copy.text().then(
        (text) => recordAnswer(this.documents, method, path, copy.status, copy.headers.get('content-type') ?? '', text),
        () => undefined,
      ),
    );
    return response;
  };

  /** Waits for every recorded body to be read in full. */
  async settle(): Promise<RecordedDocument[]> {
    await Promise.all(this.pending.splice(0));
    return this.documents;
  }
}

/** The spec schema a document must satisfy, by route, status and part; undefined when the spec has none. */
export function schemaFor(doc: RecordedDocument): string | undefined {
  if (!doc.path.startsWith('/v1/')) return undefined;
  if (doc.status >= 400) return 'ErrorResponse';
  if (doc.method === 'GET' && doc.path === '/v1/models') return 'ListModelsResponse';
  if (doc.method === 'GET' && doc.path.startsWith('/v1/models/')) return 'Model';
  if (doc.path === '/v1/chat/completions') return doc.part === 'chunk' ? 'CreateChatCompletionStreamResponse' : 'CreateChatCompletionResponse';
  if (doc.path.startsWith('/v1/images/')) return 'ImagesResponse';
  if (doc.path === '/v1/embeddings') return 'CreateEmbeddingResponse';
  return undefined;
}

/**
 * The spec types `embedding` as a float array only, while `encoding_format: base64` (what the
 * `openai` SDK asks for by default) answers a base64 string: such a vector is checked as the
 * floats it decodes to.
 */
function decodeBase64Vectors(json: unknown): unknown {
  if (typeof json !== 'object' || json === null || !Array.isArray((json as { data?: unknown }).data)) return json;
  const body = json as { data: Array<Record<string, unknown>> };
  const data = body.data.map((item) => {
    if (typeof item.embedding !== 'string') return item;
    const bytes = Buffer.from(item.embedding, 'base64');
    return { ...item, embedding: Array.from({ length: Math.floor(bytes.length / 4) }, (_, i) => bytes.readFloatLE(i * 4)) };
  });
  return { ...body, data };
}

/**
 * The one deliberate deviation: after a stream started, an error is reported in a chunk whose
 * choice has `finish_reason: "error"` (the spec's enum has no such value). That chunk is checked
 * with only this field relaxed, and its `error` object against the spec's `Error`.
 */
function relaxErrorChunk(json: unknown): { chunk: unknown; error: unknown } | undefined {
  if (typeof json !== 'object' || json === null || !('error' in json)) return undefined;
  const { error, ...rest } = json as { error: unknown; choices?: Array<Record<string, unknown>> };
  const choices = (rest.choices ?? []).map((c) => (c.finish_reason === 'error' ? { ...c, finish_reason: 'stop' } : c));
  return { chunk: { ...rest, choices }, error: { error } };
}

function check(validate: ValidateFunction, name: string, json: unknown, where: string, problems: SpecProblem[]): void {
  if (!validate(json)) problems.push({ where, schema: name, errors: schemaErrors(validate) });
}

/** Validates every document against its schema; returns what failed (empty when all conform). */
export function specProblems(documents: readonly RecordedDocument[]): SpecProblem[] {
  const problems: SpecProblem[] = [];
  documents.forEach((doc, i) => {
    const name = schemaFor(doc);
    if (name === undefined) return;
    const where = `#${i} ${doc.method} ${doc.path} ${doc.status} ${doc.part}: ${JSON.stringify(doc.json).slice(0, 300)}`;
    const relaxed = doc.part === 'chunk' ? relaxErrorChunk(doc.json) : undefined;
    if (relaxed !== undefined) {
      check(openAiSchema(name), name, relaxed.chunk, where, problems);
      check(openAiSchema('ErrorResponse'), 'ErrorResponse', relaxed.error, where, problems);
      return;
    }
    check(openAiSchema(name), name, name === 'CreateEmbeddingResponse' ? decodeBase64Vectors(doc.json) : doc.json, where, problems);
  });
  return problems;
}

/** How many documents were checked per schema (so a test can show it was not vacuous). */
export function countBySchema(documents: readonly RecordedDocument[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const doc of documents) {
    const name = schemaFor(doc);
    if (name !== undefined) counts[name] = (counts[name] ?? 0) + 1;
  }
  return counts;
}

/** A recorder feeding `answeredDocuments`: give its `fetch` to SDK clients in e2e tests. */
export const answeredRecorder = new SpecRecorder(answeredDocuments);
