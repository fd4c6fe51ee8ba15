import { nullable, object, ref, type Schema } from './openapi-builders.js';

const str: Schema = { type: 'string' };
const num: Schema = { type: 'number' };
const int: Schema = { type: 'integer' };
const bool: Schema = { type: 'boolean' };
const time: Schema = { type: 'string', format: 'date-time' };
const usd: Schema = { type: 'number', description: 'US dollars' };
/** Exact decimal amounts (costs, holds) are strings so no digit is lost. */
const usdText: Schema = { type: 'string', description: 'US dollars, exact decimal' };
const anyObject: Schema = { type: 'object' };

const spendCaps: Schema = { type: 'object', properties: { lifetime: usd, day: usd, week: usd, month: usd }, additionalProperties: false };
const sharedLimits: Schema = { type: 'object', properties: { spend_cap_usd: spendCaps, rpm: int, tpm: int } };

const costLine: Schema = object({ component: str, units: num, unit_price_usd: usdText, amount_usd: usdText });

const account: Schema = object({ account_id: str, name: nullable(str), balance_usd: usd, free_tier: bool, created_at: time });

/** Every schema of `#/components/schemas`, by name. */
export const SCHEMAS: Record<string, Schema> = {
  Error: object({ error: object({ message: str, type: str, code: nullable(str), param: nullable(str) }) }),
  Limits: {
    type: 'object',
    description: 'A key\'s limits; absent limits are left out.',
    properties: { spend_cap_usd: spendCaps, rpm: int, tpm: int, concurrent_streams: int, models: { type: 'array', items: str }, max_cost_per_request: usd, end_user_limits: sharedLimits, cache_ttl_seconds: int },
  },
  SharedLimits: sharedLimits,
  CostLine: costLine,
  Account: account,
  AccountDetail: {
    allOf: [account, object({ topped_up_usd: usd, granted_usd: usd, charged_usd: usd, absorbed_usd: usd, limits: ref('SharedLimits') })],
  },
  Key: object({
    key_id: str,
    account_id: str,
    name: str,
    label: str,
    role: { type: 'string', enum: ['inference', 'management'] },
    disabled: bool,
    expires_at: nullable(time),
    limits: ref('Limits'),
    spend_usd: usd,
    created_at: time,
  }),
  LimitUsage: object(
    { scope: { type: 'string', enum: ['key', 'account', 'end_user'] }, limit: str, value: num, used: num, in_flight_usd: num, remaining: num, resets_at: nullable(time) },
    ['in_flight_usd'],
  ),
  KeyInfo: object({
    key_id: str,
    account_id: str,
    free_tier: bool,
    spend_usd: usd,
    name: str,
    label: str,
    disabled: bool,
    expires_at: nullable(time),
    limits: ref('Limits'),
    usage: object({ day_usd: usd, week_usd: usd, month_usd: usd }),
    remaining: object({ lifetime_usd: nullable(usd), day_usd: nullable(usd), week_usd: nullable(usd), month_usd: nullable(usd), requests_this_minute: nullable(int) }),
    end_user: nullable(str),
    limit_usage: { type: 'array', items: ref('LimitUsage') },
  }),
  Credits: object({ balance_usd: usd, free_tier: bool }),
  LedgerEntry: object(
    {
      id: str,
      kind: { type: 'string', enum: ['charge', 'topup', 'grant'] },
      credit_usd: usd,
      cost_usd: usd,
      charged_usd: usd,
      absorbed_usd: usd,
      over_limit_usd: usd,
      absorbed_reason: nullable(str),
      cost_details: { type: 'array', items: ref('CostLine') },
      price_version: str,
      key_id: nullable(str),
      model: nullable(str),
      reference: nullable(str),
      units: nullable({ type: 'object', additionalProperties: num }),
      created_at: time,
      seq: nullable(int),
      prev_hash: nullable(str),
      hash: nullable(str),
    },
    ['over_limit_usd', 'absorbed_reason', 'cost_details', 'price_version'],
  ),
  Credit: object({ entry: ref('LedgerEntry'), account: ref('Account') }),
  ChainReport: object({
    account_id: str,
    ok: bool,
    entries: int,
    unchained: int,
    head: nullable(object({ seq: int, hash: str })),
    break: nullable(object({ entry_id: nullable(str), seq: int, reason: { type: 'string', enum: ['hash_mismatch', 'prev_hash_mismatch', 'sequence_gap', 'head_mismatch'] } })),
  }),
  RequestRecord: object({
    id: str,
    account_id: str,
    key_id: str,
    end_user: nullable(str),
    endpoint: str,
    model: nullable(str),
    provider: nullable(str),
    stream: bool,
    status: int,
    error_code: nullable(str),
    usage: { type: 'object', description: 'input_tokens, output_tokens, images, pages, as they apply' },
    cost_usd: usd,
    cost_details: { type: 'array', items: ref('CostLine') },
    price_version: nullable(str),
    latency_ms: num,
    created_at: time,
    attempts: { type: 'array', items: anyObject, description: 'Every route tried or skipped, in order' },
  }),
  UsageRow: object({ date: str, model: nullable(str), requests: int, cost_usd: usd, input_tokens: int, output_tokens: int }),
  PublicModel: object(
    {
      id: str,
      object: { const: 'model' },
      created: int,
      owned_by: str,
      name: str,
      free_tier: bool,
      pricing: { type: 'object', additionalProperties: str, description: 'USD per unit, by price key; `cache_hit` is the fraction of a cached answer\'s cost a cache hit pays' },
      capabilities: { type: 'array', items: str },
      context_length: nullable(int),
      max_output_tokens: nullable(int),
      dimensions: int,
    },
    ['dimensions'],
  ),
  OperatorModel: {
    allOf: [
      ref('PublicModel'),
      object({
        kind: { type: 'string', enum: ['chat', 'image', 'ocr', 'embedding'] },
        provider: str,
        upstream_model: str,
        aliases: { type: 'array', items: str },
        routes: { type: 'array', items: object({ provider: str, upstream_model: str, pricing: anyObject, price_version: str, available: bool, health: anyObject }, ['health']) },
        available: bool,
      }),
    ],
  },
  Quote: object({
    endpoint: str,
    model: str,
    hold_usd: usdText,
    lines: { type: 'array', items: ref('CostLine') },
    price_version: str,
    fits: bool,
    checks: { type: 'object', additionalProperties: object({ room_usd: usdText, fits: bool }) },
    largest_fit: { description: 'What would fit when the request does not (null when it fits)' },
  }),
  TokenCount: object({ input_tokens: int, source: { type: 'string', enum: ['exact', 'upstream', 'bound'] } }),
  SignedReceipt: object({ kid: str, alg: { const: 'EdDSA' }, payload: str, signature: str, receipt: anyObject }),
  Jwks: object({ keys: { type: 'array', items: object({ kty: { const: 'OKP' }, crv: { const: 'Ed25519' }, x: str, kid: str, alg: { const: 'EdDSA' }, use: { const: 'sig' } }) } }),
  WebhookEndpoint: object(
  {
    id: str,
    object: { const: 'webhook_endpoint' },
    account_id: str,
    url: str,
    description: nullable(str),
    events: { type: 'array', items: str },
    disabled: bool,
    created_at: time,
    updated_at: time,
  }, ['description']),
  WebhookDelivery: object({
    id: str,
    object: { const: 'webhook_delivery' },
    event_id: str,
    endpoint_id: str,
    type: str,
    status: { type: 'string', enum: ['pending', 'succeeded', 'failed'] },
    attempts: int,
    response_code: nullable(int),
    last_error: nullable(str),
    replays: int,
    created_at: time,
    updated_at: time,
  }),
  WebhookSettings: object({ balance_low_usd: nullable(usd) }),
  Deleted: { type: 'object', properties: { id: str, key_id: str, deleted: { const: true } }, required: ['deleted'] },
};
