import type { ValidateFunction } from 'ajv';
import { openAiSchema, schemaErrors } from '../../helpers/openai-spec.js';

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
 * Records every JSON answer and every stream chunk that passes through a `fetch`, so client
 * libraries (openai, AI SDK, LangChain) can be given this fetch and everything they received
 * checked against OpenAI's spec afterwards. Bodies are read from a clone, next to the client.
 */
export class SpecRecorder {
  readonly documents: RecordedDocument[] = [];
  private readonly pending: Array<Promise<void>> = [];

  /** A fetch that records what it returns. */
  readonly fetch: typeof globalThis.fetch = async (input, init) => {
    const response = await globalThis.fetch(input, init);
    const request = new Request(input, init);
    this.pending.push(this.record(request.method, new URL(request.url).pathname, response.clone()));
    return response;
  };

  private async record(method: string, path: string, response: Response): Promise<void> {
    const type = response.headers.get('content-type') ?? '';
    const text = await response.text().catch(() => '');
    if (type.includes('text/event-stream')) {
      for (const line of text.split('\n')) {
        if (!line.startsWith('data:')) continue;
        const data = line.slice(5).trim();
        if (data !== '' && data !== '[DONE]') this.documents.push({ method, path, status: response.status, part: 'chunk', json: JSON.parse(data) });
      }
    } else if (type.includes('application/json')) {
      this.documents.push({ method, path, status: response.status, part: 'body', json: JSON.parse(text) });
    }
  }

  /** Waits for every recorded body to be read in full. */
  async settle(): Promise<RecordedDocument[]> {
    await Promise.all(this.pending.splice(0));
    return this.documents;
  }
}

/** The spec schema a document must satisfy, by route, status and part; undefined when the spec has none. */
export function schemaFor(doc: RecordedDocument): string | undefined {
  if (doc.status >= 400) return 'ErrorResponse';
  if (doc.method === 'GET' && doc.path === '/v1/models') return 'ListModelsResponse';
  if (doc.method === 'GET' && doc.path.startsWith('/v1/models/')) return 'Model';
  if (doc.path === '/v1/chat/completions') return doc.part === 'chunk' ? 'CreateChatCompletionStreamResponse' : 'CreateChatCompletionResponse';
  if (doc.path.startsWith('/v1/images/')) return 'ImagesResponse';
  return undefined;
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
    check(openAiSchema(name), name, doc.json, where, problems);
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
