import { QUOTE_ENDPOINTS } from '../../quote/index.js';
import { recordListSchema, usageSchema } from '../routes/requests/request-schemas.js';
import { add, envelope, object, page, queryOf, ref, type Paths } from './openapi-builders.js';
import { keyItemPaths, keyListPaths, type Audience } from './openapi-paths-keys.js';

/** Who calls the routes of a key's own account. */
export interface KeyAudiences {
  /** Any key of the account. */
  readonly anyKey: Audience;
  /** Management keys only. */
  readonly management: Audience;
  /** Inference keys only. */
  readonly inference: Audience;
}

const vendorBody = { type: 'object', description: 'The request body of that door, as its vendor\'s spec defines it' };

/** `/v1/key`, `/v1/credits` and the management keys' own keys. */
function keyPaths(paths: Paths, who: KeyAudiences): void {
  add(paths, 'get', '/v1/key', {
    ...who.anyKey,
    summary: 'The calling key: limits, spend, what remains under each cap',
    parameters: [{ name: 'end_user', in: 'query', required: false, schema: { type: 'string' }, description: 'Also show this end user\'s limits (or send X-Farebox-End-User)' }],
    response: envelope(ref('KeyInfo')),
  });
  add(paths, 'get', '/v1/credits', { ...who.anyKey, summary: 'The account\'s balance', response: envelope(ref('Credits')) });
  keyListPaths(paths, '/v1/keys', who.management);
  keyItemPaths(paths, '/v1', who.management);
}

/** Request records, usage and receipts of the caller's account. */
function recordPaths(paths: Paths, who: KeyAudiences): void {
  add(paths, 'get', '/v1/requests', {
    ...who.anyKey,
    summary: 'List request records, newest first',
    description: 'A management key sees the whole account (`key_id` narrows it); an inference key only its own requests.',
    parameters: queryOf(recordListSchema),
    response: page(ref('RequestRecord')),
  });
  add(paths, 'get', '/v1/requests/{request_id}', { ...who.anyKey, summary: 'Read one request record', response: envelope(ref('RequestRecord')) });
  add(paths, 'get', '/v1/usage', { ...who.management, summary: 'Usage per UTC day and model (default: the last 30 days)', parameters: queryOf(usageSchema), response: envelope({ type: 'array', items: ref('UsageRow') }) });
  add(paths, 'get', '/v1/requests/{request_id}/receipt', { ...who.anyKey, summary: 'The signed receipt of a charged request', response: envelope(ref('SignedReceipt')) });
  add(paths, 'get', '/v1/receipts/keys', { tags: ['Receipts'], auth: [], summary: 'The Ed25519 public keys that verify receipts (JWKS)', response: ref('Jwks') });
  add(paths, 'get', '/v1/receipts/export', {
    ...who.management,
    summary: 'Every signed receipt of the account in a range, as JSON lines',
    parameters: queryOf(usageSchema),
    contentType: 'application/x-ndjson',
    response: { type: 'string', description: 'One SignedReceipt per line, oldest first' },
  });
}

/** The quote and the token counts: what a request would hold or bill, never charged. */
function estimatePaths(paths: Paths, who: KeyAudiences): void {
  add(paths, 'post', '/v1/quote', {
    ...who.inference,
    summary: 'The worst-case hold of a request, line by line, and whether it fits each limit now',
    description: 'Nothing is called upstream, held or charged. The inner body\'s `max_cost` (or `X-Max-Cost`) is its ceiling, as on inference.',
    body: object({ endpoint: { type: 'string', enum: [...QUOTE_ENDPOINTS], description: 'With or without a leading `/v1/`' }, body: vendorBody }),
    response: envelope(ref('Quote')),
  });
  const counted = { ...who.inference, tags: ['Token counts'], body: vendorBody, description: 'Exact for local models, the upstream\'s own count where the route has one, else the hold\'s bound (`source: "bound"`). Never charged.' };
  add(paths, 'post', '/v1/messages/count_tokens', { ...counted, summary: 'Count a Messages request\'s input tokens (Anthropic\'s shape)', response: ref('TokenCount') });
  add(paths, 'post', '/v1/responses/input_tokens', {
    ...counted,
    summary: 'Count a Responses request\'s input tokens (OpenAI\'s shape)',
    response: { allOf: [ref('TokenCount'), object({ object: { const: 'response.input_tokens' } })] },
  });
}

/** Everything a Farebox key calls besides the inference doors. */
export function accountPaths(paths: Paths, who: KeyAudiences): void {
  keyPaths(paths, who);
  recordPaths(paths, who);
  estimatePaths(paths, who);
}
