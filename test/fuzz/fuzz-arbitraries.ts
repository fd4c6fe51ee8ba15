import fc from 'fast-check';

/** One request the fuzz suite sends. */
export interface FuzzRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string | FormData;
}

/** The keys a case may present, from the web under test plus bogus ones. */
export interface FuzzKeys {
  funded: string;
  freeTier: string;
  management: string;
  admin: string;
}

/**
 * Models that are served on any machine. Vendor models are left out: without vendor credentials
 * they answer 503 (provider disabled), which is not the input's fault; random ids cover
 * "unknown model".
 */
const LOCAL_MODELS = ['local/echo', 'local/echo-free', 'local/canvas-image', 'local/instant-image', 'local/reader', 'local/hashed-ngrams'];

/** Any string up to `maxLength`. */
export const text = (maxLength = 60) => fc.string({ maxLength });
/** Any JSON value. */
export const anyJson = fc.jsonValue({ maxDepth: 3 });
/** A model id: mostly a local one, sometimes any string or any JSON. */
export const model = fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...LOCAL_MODELS) }, { weight: 1, arbitrary: text(40) }, { weight: 1, arbitrary: anyJson });
/** A number in range, or one of the wrong kind. */
export const maybeNumber = (min: number, max: number) => fc.oneof(fc.integer({ min, max }), fc.double({ noNaN: false }), text(8), fc.constant(null));

/** A bearer key: mostly one of `allowed`, sometimes one character off one (after it on the same connection), garbage or none. */
export function bearer(keys: FuzzKeys, allowed: readonly (keyof FuzzKeys)[]) {
  const valid = fc.constantFrom(...allowed.map((k) => keys[k]));
  return fc.oneof(
    { weight: 6, arbitrary: valid },
    { weight: 1, arbitrary: valid.map((k) => `${k.slice(0, -1)}${k.endsWith('A') ? 'B' : 'A'}`) },
    { weight: 1, arbitrary: text(80) },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );
}

/** A JSON body: mostly shaped like the endpoint's input, sometimes any JSON, sometimes not JSON. */
export function jsonBody(shaped: fc.Arbitrary<unknown>) {
  return fc.oneof(
    { weight: 6, arbitrary: shaped.map((v) => JSON.stringify(v)) },
    { weight: 1, arbitrary: anyJson.map((v) => JSON.stringify(v)) },
    { weight: 1, arbitrary: shaped.map((v) => JSON.stringify(v).slice(0, -3)) },
    { weight: 1, arbitrary: text(100) },
  );
}

/** Mostly JSON, sometimes another content type. */
export const contentType = fc.oneof(
  { weight: 8, arbitrary: fc.constant('application/json') },
  { weight: 1, arbitrary: fc.constantFrom('text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=latin1', 'multipart/form-data; boundary=x') },
);

/** Builds a request with an optional bearer key and body. */
export function request(method: string, path: string, key: string | undefined, body?: string | FormData, type?: string): FuzzRequest {
  const headers: Record<string, string> = {};
  if (key !== undefined) headers.authorization = `Bearer ${key}`;
  if (type !== undefined && body !== undefined) headers['content-type'] = type;
  return { method, path, headers, ...(body === undefined ? {} : { body }) };
}

const toolSchema = fc.record(
  {
    type: fc.constantFrom('object', 'string', 'array', 'integer', 'nonsense'),
    minLength: fc.integer({ min: 0, max: 40 }),
    maxLength: fc.integer({ min: 0, max: 40 }),
    minItems: fc.integer({ min: 0, max: 8 }),
    items: fc.constant({ type: 'string' }),
  },
  { requiredKeys: ['type'] },
);
const tool = fc.record({ type: fc.constantFrom('function', 'other'), function: fc.record({ name: text(20), parameters: fc.oneof(toolSchema, anyJson) }, { requiredKeys: [] }) });
const message = fc.record(
  {
    role: fc.constantFrom('user', 'system', 'assistant', 'tool', 'developer', 'nobody'),
    content: fc.oneof(text(300), fc.constant(null), fc.array(fc.record({ type: fc.constantFrom('text', 'image_url'), text: text(40) }), { maxLength: 2 }), fc.integer()),
  },
  { requiredKeys: ['role'] },
);

/** A valid chat request for a local model, which the fuzz then mutates field by field. */
const validChat = fc.record({
  model: fc.constantFrom('local/echo', 'local/echo-free'),
  messages: fc.array(fc.record({ role: fc.constantFrom('user', 'system'), content: text(200) }), { minLength: 1, maxLength: 3 }),
  max_tokens: fc.integer({ min: 1, max: 32 }),
  stream: fc.boolean(),
});

/** Any chat-shaped record, each field possibly the wrong type. */
const wildChat = fc.record(
  {
    model,
    messages: fc.oneof({ weight: 4, arbitrary: fc.array(message, { maxLength: 4 }) }, { weight: 1, arbitrary: anyJson }),
    max_tokens: maybeNumber(-2, 48),
    stream: fc.oneof(fc.boolean(), text(5)),
    temperature: maybeNumber(-1, 3),
    n: fc.integer({ min: -1, max: 3 }),
    tools: fc.array(tool, { maxLength: 2 }),
    stop: fc.oneof(text(5), fc.array(text(5), { maxLength: 5 })),
    response_format: fc.oneof(fc.record({ type: fc.constantFrom('text', 'json_object', 'json_schema', 'x') }), anyJson),
    // OpenRouter's routing fields: taken off the body before it goes upstream (and skipped when absent).
    models: fc.oneof(fc.array(model, { maxLength: 10 }), fc.constant(null), anyJson),
    provider: fc.oneof(
      fc.record({ order: fc.array(text(12), { maxLength: 3 }), only: fc.array(text(12), { maxLength: 3 }), ignore: fc.array(text(12), { maxLength: 3 }), allow_fallbacks: fc.oneof(fc.boolean(), text(3)), sort: fc.constantFrom('price', 'latency', 'x') }, { requiredKeys: [] }),
      fc.constant(null),
      anyJson,
    ),
  },
  { requiredKeys: [] },
);

/** A valid request with one field replaced by a value from the wild generator. */
const mutatedChat = fc.tuple(validChat, wildChat, fc.constantFrom('model', 'messages', 'max_tokens', 'stream', 'temperature', 'n', 'tools', 'stop', 'response_format', 'models', 'provider')).map(
  ([valid, wild, field]) => ({ ...valid, [field]: (wild as Record<string, unknown>)[field] }),
);

/** `POST /v1/chat/completions`. */
export function chatRequests(keys: FuzzKeys): fc.Arbitrary<FuzzRequest> {
  const body = fc.oneof({ weight: 3, arbitrary: validChat }, { weight: 4, arbitrary: mutatedChat }, { weight: 2, arbitrary: wildChat });
  return fc
    .tuple(bearer(keys, ['funded', 'funded', 'freeTier', 'management']), jsonBody(body), contentType)
    .map(([key, raw, type]) => request('POST', '/v1/chat/completions', key, raw, type));
}

/** `POST /v1/images/generations`. No funded key: a valid request would wait for a worker. */
export function generationRequests(keys: FuzzKeys): fc.Arbitrary<FuzzRequest> {
  const body = fc.record(
    {
      model,
      prompt: fc.oneof(text(200), fc.integer(), fc.constant(null)),
      n: maybeNumber(-1, 12),
      size: fc.oneof(fc.constantFrom('256x256', '1024x1024', '0x0', '99999x99999', 'auto', 'x'), text(12)),
      response_format: fc.constantFrom('b64_json', 'url', 'nope'),
      quality: fc.constantFrom('low', 'high', 'auto', 'x'),
    },
    { requiredKeys: [] },
  );
  return fc
    .tuple(bearer(keys, ['freeTier', 'management']), jsonBody(body), contentType)
    .map(([key, raw, type]) => request('POST', '/v1/images/generations', key, raw, type));
}

/** `POST /v1/images/edits` as multipart forms (and, sometimes, as something else). */
export function editRequests(keys: FuzzKeys, png: Uint8Array): fc.Arbitrary<FuzzRequest> {
  const file = fc.record({
    field: fc.constantFrom('image', 'image[]', 'mask', 'other'),
    data: fc.oneof(fc.constant(png), fc.uint8Array({ maxLength: 2048 })),
    type: fc.constantFrom('image/png', 'application/octet-stream', ''),
  });
  const fields = fc.record(
    { model: fc.oneof(fc.constantFrom(...LOCAL_MODELS), text(30)), prompt: text(200), n: fc.oneof(fc.integer({ min: -1, max: 12 }).map(String), text(4)), size: fc.constantFrom('256x256', '0x0', 'x', '64x64') },
    { requiredKeys: [] },
  );
  const form = fc.tuple(fields, fc.array(file, { maxLength: 3 })).map(([values, files]) => {
    const data = new FormData();
    for (const [name, value] of Object.entries(values)) data.append(name, value);
    for (const f of files) data.append(f.field, new Blob([f.data], { type: f.type }), 'upload.png');
    return data;
  });
  return fc.tuple(bearer(keys, ['freeTier', 'management']), fc.oneof({ weight: 5, arbitrary: form }, { weight: 1, arbitrary: text(200) })).map(([key, body]) =>
    request('POST', '/v1/images/edits', key, body, typeof body === 'string' ? 'multipart/form-data; boundary=----fuzz' : undefined),
  );
}

/** `POST /v1/ocr`. No funded key: a valid request would wait for a worker. */
export function ocrRequests(keys: FuzzKeys): fc.Arbitrary<FuzzRequest> {
  const url = fc.oneof(
    fc.base64String({ maxLength: 400 }).map((b) => `data:application/pdf;base64,${b}`),
    fc.base64String({ maxLength: 400 }).map((b) => `data:image/png;base64,${b}`),
    fc.constantFrom('http://127.0.0.1:9/doc.pdf', 'file:///etc/passwd', 'data:,', ''),
    text(60),
  );
  const document = fc.oneof(
    fc.record({ type: fc.constant('document_url'), document_url: url, document_name: text(20) }, { requiredKeys: ['type'] }),
    fc.record({ type: fc.constant('image_url'), image_url: fc.oneof(url, fc.record({ url })) }, { requiredKeys: ['type'] }),
    anyJson,
  );
  const body = fc.record({ model, document, pages: fc.oneof(fc.array(fc.integer({ min: -2, max: 5 }), { maxLength: 3 }), anyJson), include_image_base64: fc.boolean() }, { requiredKeys: [] });
  return fc.tuple(bearer(keys, ['freeTier', 'management']), jsonBody(body), contentType).map(([key, raw, type]) => request('POST', '/v1/ocr', key, raw, type));
}

/** `GET /v1/key`, `GET /v1/credits`, and the management key API `/v1/keys`. */
export function accountRequests(keys: FuzzKeys): fc.Arbitrary<FuzzRequest> {
  const read = fc
    .tuple(fc.constantFrom('/v1/key', '/v1/credits'), fc.oneof(fc.constant(''), text(20).map((q) => `?${encodeURIComponent(q)}=1`)), bearer(keys, ['funded', 'freeTier', 'management']), fc.constantFrom('GET', 'POST'))
    .map(([path, query, key, method]) => request(method, `${path}${query}`, key));
  const keyBody = fc.record({ name: fc.oneof(text(40), fc.integer()), disabled: fc.oneof(fc.boolean(), text(3)), limits: fc.oneof(fc.record({ rpm: maybeNumber(-1, 100), models: fc.array(text(20), { maxLength: 3 }) }, { requiredKeys: [] }), anyJson), expires_at: fc.oneof(text(30), fc.date({ noInvalidDate: true }).map((d) => d.toISOString())) }, { requiredKeys: [] });
  const manage = fc
    .tuple(fc.constantFrom('GET', 'POST', 'PATCH', 'DELETE'), fc.oneof(fc.constant('/v1/keys'), text(24).map((id) => `/v1/keys/${encodeURIComponent(id)}`)), bearer(keys, ['management', 'funded']), jsonBody(keyBody))
    .map(([method, path, key, body]) => request(method, path, key, method === 'GET' || method === 'DELETE' ? undefined : body, 'application/json'));
  return fc.oneof(read, manage);
}

/** `GET /v1/models` and `GET /v1/models/:id` in both id forms. */
export function modelRequests(): fc.Arbitrary<FuzzRequest> {
  const id = fc.oneof(
    fc.constantFrom('local/echo', 'local%2Fecho', 'local/reader', 'openai/gpt-4o', 'a/b/c', '%2F', '..%2F..'),
    text(40).map(encodeURIComponent),
    fc.tuple(text(12), text(12)).map(([a, b]) => `${encodeURIComponent(a)}/${encodeURIComponent(b)}`),
  );
  return fc.oneof(fc.constant('/v1/models'), id.map((m) => `/v1/models/${m}`)).map((path) => request('GET', path, undefined));
}

/** Hostile query strings for the record lists, usage and CSV exports: odd values, repeats, junk. */
function recordQuery(ids: { accountId: string; keyId: string }): fc.Arbitrary<string> {
  const value = fc.oneof(
    text(30).map(encodeURIComponent),
    fc.constantFrom('0', '-1', '501', '1e9', '2026-02-30', '2026-11-22T10:00:00', '2026-11-22T10:00:00Z', '%', '%zz', ids.accountId, ids.keyId, 'local/echo', 'WzEsImEiXQ', 'bnVsbA'),
  );
  const name = fc.constantFrom('limit', 'cursor', 'from', 'to', 'key_id', 'account_id', 'model', 'x');
  return fc.array(fc.tuple(name, value), { maxLength: 4 }).map((pairs) => (pairs.length === 0 ? '' : `?${pairs.map(([k, v]) => `${k}=${v}`).join('&')}`));
}

/** Request records, usage and CSV exports, for keys and for the operator. */
export function recordRequests(keys: FuzzKeys, ids: { accountId: string; keyId: string }): fc.Arbitrary<FuzzRequest> {
  const id = fc.oneof(fc.constant('req_0123abcd'), text(40).map(encodeURIComponent));
  const account = fc
    .tuple(fc.oneof(fc.constantFrom('/v1/requests', '/v1/usage'), id.map((r) => `/v1/requests/${r}`)), recordQuery(ids), bearer(keys, ['funded', 'management', 'freeTier']))
    .map(([path, query, key]) => request('GET', `${path}${query}`, key));
  const operator = fc
    .tuple(fc.oneof(fc.constantFrom('/v1/admin/requests', '/v1/admin/usage', '/v1/admin/requests.csv', '/v1/admin/ledger.csv'), id.map((r) => `/v1/admin/requests/${r}`)), recordQuery(ids), fc.oneof({ weight: 5, arbitrary: fc.constant(keys.admin) }, { weight: 1, arbitrary: text(30) }))
    .map(([path, query, token]) => request('GET', `${path}${query}`, token));
  return fc.oneof(account, operator);
}

/** The operator API under `/v1/admin`, with the operator token and without. */
export function adminRequests(keys: FuzzKeys, ids: { accountId: string; keyId: string }): fc.Arbitrary<FuzzRequest> {
  const acct = fc.oneof({ weight: 4, arbitrary: fc.constant(ids.accountId) }, { weight: 1, arbitrary: text(24).map(encodeURIComponent) });
  const key = fc.oneof({ weight: 4, arbitrary: fc.constant(ids.keyId) }, { weight: 1, arbitrary: text(24).map(encodeURIComponent) });
  const route = fc.oneof(
    fc.constant<[string, string]>(['POST', '/v1/admin/accounts']),
    acct.map((a): [string, string] => ['GET', `/v1/admin/accounts/${a}`]),
    fc.tuple(acct, fc.constantFrom('topups', 'grants', 'keys')).map(([a, s]): [string, string] => ['POST', `/v1/admin/accounts/${a}/${s}`]),
    fc.tuple(acct, text(6), text(10)).map(([a, l, c]): [string, string] => ['GET', `/v1/admin/accounts/${a}/ledger?limit=${encodeURIComponent(l)}&cursor=${encodeURIComponent(c)}`]),
    fc.tuple(fc.constantFrom('GET', 'PATCH'), key).map(([m, k]): [string, string] => [m, `/v1/admin/keys/${k}`]),
    key.map((k): [string, string] => ['POST', `/v1/admin/keys/${k}/rotate`]),
    fc.tuple(fc.constantFrom('PUT', 'DELETE'), text(10), text(10)).map(([m, v, n]): [string, string] => [m, `/v1/admin/models/fuzz${encodeURIComponent(v)}/${encodeURIComponent(n)}`]),
    fc.tuple(fc.constantFrom('GET', 'POST', 'PATCH', 'PUT', 'DELETE'), text(30)).map(([m, p]): [string, string] => [m, `/v1/admin/${encodeURIComponent(p)}`]),
  );
  const body = fc.record(
    {
      name: fc.oneof(text(40), fc.integer()),
      amount_usd: fc.oneof(fc.double(), fc.integer({ min: -5, max: 5 }), text(12), fc.constantFrom('0.01', '1e30', '-1', 1)),
      reference: fc.oneof(text(30), fc.constant('')),
      role: fc.constantFrom('inference', 'management', 'root'),
      disabled: fc.boolean(),
      limits: fc.oneof(fc.record({ rpm: maybeNumber(-1, 100), spend_cap_usd: anyJson }, { requiredKeys: [] }), anyJson),
      kind: fc.constantFrom('chat', 'image', 'ocr', 'x'),
      provider: fc.constantFrom('local', 'openai', 'nope'),
      pricing: anyJson,
    },
    { requiredKeys: [] },
  );
  return fc
    .tuple(route, fc.oneof({ weight: 5, arbitrary: fc.constant(keys.admin) }, { weight: 1, arbitrary: text(30) }), jsonBody(body))
    .map(([[method, p], token, raw]) => request(method, p, token, method === 'GET' || method === 'DELETE' ? undefined : raw, 'application/json'));
}

/** What fetch can send as a header value (Latin-1, no control characters but tab). */
const headerSafe = (v: string) => v.replace(/[^\t\x20-\x7e\x80-\xff]/g, '?');

/** Hostile `Idempotency-Key` and `X-Max-Cost` values (and none). */
const idempotencyKey = fc.oneof(fc.constant(undefined), text(20), fc.string({ minLength: 250, maxLength: 300 }), fc.constantFrom('k\u00e9y', '\t', ' '));
const maxCost = fc.oneof(fc.constant(undefined), fc.constantFrom('0', '-1', '1e-9', '0.000000001', '1000001', 'abc', '0.0000000001', '5'), text(10));

/** `POST /v1/chat/completions` with idempotency keys and ceilings, in header and body. */
export function ceilingChatRequests(keys: FuzzKeys): fc.Arbitrary<FuzzRequest> {
  const body = fc.tuple(validChat, fc.oneof(fc.constant(undefined), maybeNumber(-1, 5), anyJson)).map(([chat, cost]) => (cost === undefined ? chat : { ...chat, max_cost: cost }));
  return fc.tuple(bearer(keys, ['funded', 'freeTier']), jsonBody(body), idempotencyKey, maxCost).map(([key, raw, idem, cap]) => {
    const req = request('POST', '/v1/chat/completions', key, raw, 'application/json');
    if (idem !== undefined) req.headers['idempotency-key'] = headerSafe(idem);
    if (cap !== undefined) req.headers['x-max-cost'] = headerSafe(cap);
    return req;
  });
}

/** `POST /v1/quote` with shaped, mutated and wild `{endpoint, body}`. */
export function quoteRequests(keys: FuzzKeys): fc.Arbitrary<FuzzRequest> {
  const endpoint = fc.oneof(fc.constantFrom('chat/completions', '/v1/chat/completions', 'responses', 'messages', 'images/generations', 'images/edits', 'ocr', 'embeddings'), text(30), anyJson);
  const inner = fc.oneof(validChat, mutatedChat, anyJson, fc.record({ model: model, prompt: text(20), n: maybeNumber(-1, 20), max_cost: maybeNumber(-1, 2) }, { requiredKeys: [] }));
  const body = fc.record({ endpoint, body: inner }, { requiredKeys: [] });
  return fc.tuple(bearer(keys, ['funded', 'freeTier', 'management']), jsonBody(body), contentType).map(([key, raw, type]) => request('POST', '/v1/quote', key, raw, type));
}

/** Receipts: the public keys, one request's receipt, and the JSON-lines export. */
export function receiptRequests(keys: FuzzKeys): fc.Arbitrary<FuzzRequest> {
  const id = fc.oneof(fc.constant('req_0123abcd'), text(40).map(encodeURIComponent));
  const query = fc.oneof(fc.constant(''), fc.constantFrom('?from=2026-02-30', '?to=x', '?from=2026-01-01T00:00:00Z&to=2025-01-01T00:00:00Z', '?from=%zz'));
  return fc.oneof(
    fc.constant(request('GET', '/v1/receipts/keys', undefined)),
    fc.tuple(id, bearer(keys, ['funded', 'management', 'freeTier'])).map(([r, key]) => request('GET', `/v1/requests/${r}/receipt`, key)),
    fc.tuple(query, bearer(keys, ['management', 'funded'])).map(([q, key]) => request('GET', `/v1/receipts/export${q}`, key)),
  );
}
