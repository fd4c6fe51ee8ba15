import { add, envelope, object, ref, type Paths } from './openapi-builders.js';

const OPENAI_SPEC = 'https://github.com/openai/openai-openapi';
const ANTHROPIC_MESSAGES = 'https://docs.anthropic.com/en/api/messages';
const MISTRAL_OCR = 'https://docs.mistral.ai/api/#tag/ocr';

/** The vendor doors: described by their vendors' specs, listed here so every route has an entry. */
const DOORS: ReadonlyArray<{ path: string; summary: string; spec: string }> = [
  { path: '/v1/chat/completions', summary: 'Chat completions, streamed or not (OpenAI\'s createChatCompletion)', spec: OPENAI_SPEC },
  { path: '/v1/responses', summary: 'The Responses API, stateless (OpenAI\'s createResponse)', spec: OPENAI_SPEC },
  { path: '/v1/messages', summary: 'Anthropic\'s Messages API', spec: ANTHROPIC_MESSAGES },
  { path: '/v1/embeddings', summary: 'Embeddings (OpenAI\'s createEmbedding)', spec: OPENAI_SPEC },
  { path: '/v1/images/generations', summary: 'Image generation (OpenAI\'s createImage)', spec: OPENAI_SPEC },
  { path: '/v1/images/edits', summary: 'Image edits, multipart (OpenAI\'s createImageEdit)', spec: OPENAI_SPEC },
  { path: '/v1/ocr', summary: 'OCR of a document or image (Mistral\'s OCR API)', spec: MISTRAL_OCR },
];

/** The queue-backed doors, which may answer later at `/v1/jobs/{id}`. */
const QUEUED: ReadonlySet<string> = new Set(['/v1/images/generations', '/v1/images/edits', '/v1/ocr']);

/** An async job while it is pending (202), as `POST` with `Prefer: respond-async` and `GET /v1/jobs/{id}` show it. */
const JOB_STATE = object({
  id: { type: 'string' },
  object: { const: 'job' },
  status: { type: 'string', enum: ['queued', 'running'] },
  kind: { type: 'string', enum: ['images', 'ocr'] },
  created: { type: 'integer' },
});

const ASYNC_NOTE =
  ' With `Prefer: respond-async` (RFC 7240) it answers `202 Accepted` once the job is queued, with `Location: /v1/jobs/{id}`; the same holds, limits and charge apply.';

/** The inference doors, by reference to their vendors' specs. */
function doorPaths(paths: Paths): void {
  for (const door of DOORS) {
    const queued = QUEUED.has(door.path);
    add(paths, 'post', door.path, {
      tags: ['Inference'],
      auth: ['key'],
      summary: door.summary,
      description: `Request and answer follow the vendor's spec (${door.spec}); answers add \`usage.cost\` in USD.${queued ? ASYNC_NOTE : ''} See docs/api.md.`,
      body: { type: 'object' },
      response: { type: 'object' },
      ...(queued ? { also: { 202: JOB_STATE } } : {}),
    });
  }
  add(paths, 'get', '/v1/jobs/{id}', {
    tags: ['Inference'],
    auth: ['key'],
    summary: 'An async image or OCR job of the key\'s account',
    description:
      '`202` with its state and `Retry-After` while it is queued or running; once done, the answer the synchronous call would have given (its status and body), for `JOB_RESULT_TTL_MS` (default 1 h). Another account\'s job, or an expired one, is a 404.',
    response: { type: 'object' },
    also: { 202: JOB_STATE },
  });
}

/** The public catalog, health, metrics, the console's session and this document. */
function servicePaths(paths: Paths): void {
  const catalog = { tags: ['Catalog'], auth: [] };
  add(paths, 'get', '/v1/models', { ...catalog, summary: 'Models that can be served now (OpenAI\'s list shape)', response: object({ object: { const: 'list' }, data: { type: 'array', items: ref('PublicModel') } }) });
  add(paths, 'get', '/v1/models/{vendor}/{model}', { ...catalog, summary: 'One model, by `<vendor>/<model>`', response: ref('PublicModel') });
  add(paths, 'get', '/v1/models/{id}', { ...catalog, summary: 'One model, by its id as one encoded segment (`vendor%2Fmodel`, as the OpenAI SDK sends it)', response: ref('PublicModel') });
  const service = { tags: ['Service'], auth: [] };
  add(paths, 'get', '/healthz', { ...service, summary: 'Liveness, and which path admits requests (`degraded`: Redis unreachable, admitting on held slices)', response: object({ status: { const: 'ok' }, admission: { type: 'string', enum: ['exact', 'leased', 'degraded'] } }) });
  const ready = object({ status: { type: 'string', enum: ['ready', 'unavailable'] }, mongo: { type: 'boolean' }, redis: { type: 'boolean' } });
  add(paths, 'get', '/readyz', { ...service, summary: 'Readiness: MongoDB and Redis reachable (503 with Retry-After when not)', response: ready, also: { 503: ready } });
  add(paths, 'get', '/metrics', { ...service, auth: ['operator', 'console'], summary: 'Prometheus metrics', contentType: 'text/plain', response: { type: 'string' } });
  add(paths, 'get', '/v1/openapi.json', { ...service, summary: 'This document', response: { type: 'object' } });
  const consoleSession = { tags: ['Console'], auth: [] };
  const mode = { type: 'string', enum: ['operator', 'account'] };
  add(paths, 'post', '/console/session', {
    ...consoleSession,
    summary: 'Sign in to the console with the operator token or a management key (sets the session cookie)',
    status: 201,
    body: object({ token: { type: 'string' } }),
    response: envelope(object({ mode, expires_at: { type: 'string', format: 'date-time' }, account_id: { type: 'string' }, key_id: { type: 'string' } }, ['account_id', 'key_id'])),
  });
  add(paths, 'get', '/console/session', {
    ...consoleSession,
    auth: ['console'],
    summary: 'Who the console session is',
    response: envelope(object({ mode, account_id: { type: 'string' }, key_id: { type: 'string' }, key_name: { type: 'string' } }, ['account_id', 'key_id', 'key_name'])),
  });
  add(paths, 'delete', '/console/session', { ...consoleSession, summary: 'Sign out', response: envelope(object({ signed_out: { const: true } })) });
}

/** Routes outside the operator and key APIs. */
export function serviceAndDoorPaths(paths: Paths): void {
  servicePaths(paths);
  doorPaths(paths);
}
