/** Every error code the gateway can answer with (DESIGN §4.4). */
export type ErrorCode =
  | 'invalid_request'
  | 'wrong_endpoint'
  | 'unsupported_response_format'
  | 'model_capability_missing'
  | 'invalid_api_key'
  | 'insufficient_credits'
  | 'key_limit_exceeded'
  | 'model_not_allowed'
  | 'permission_denied'
  | 'model_not_found'
  | 'not_found'
  | 'method_not_allowed'
  | 'payload_too_large'
  | 'max_cost_exceeded'
  | 'idempotency_key_reused'
  | 'idempotency_in_progress'
  | 'rate_limited'
  | 'too_many_concurrent'
  | 'upstream_error'
  | 'service_unavailable'
  | 'overloaded'
  | 'upstream_timeout'
  | 'internal_error';

/** The `type` field of an error body, as OpenAI-compatible clients expect. */
export type ErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'billing_error'
  | 'permission_error'
  | 'rate_limit_error'
  | 'upstream_error'
  | 'api_error';

interface ErrorRow {
  readonly status: number;
  readonly type: ErrorType;
}

/** The single status/type table; nothing else decides an error's status. */
export const ERROR_TABLE: Readonly<Record<ErrorCode, ErrorRow>> = {
  invalid_request: { status: 400, type: 'invalid_request_error' },
  wrong_endpoint: { status: 400, type: 'invalid_request_error' },
  unsupported_response_format: { status: 400, type: 'invalid_request_error' },
  model_capability_missing: { status: 400, type: 'invalid_request_error' },
  invalid_api_key: { status: 401, type: 'authentication_error' },
  insufficient_credits: { status: 402, type: 'billing_error' },
  key_limit_exceeded: { status: 403, type: 'permission_error' },
  model_not_allowed: { status: 403, type: 'permission_error' },
  permission_denied: { status: 403, type: 'permission_error' },
  model_not_found: { status: 404, type: 'invalid_request_error' },
  not_found: { status: 404, type: 'invalid_request_error' },
  method_not_allowed: { status: 405, type: 'invalid_request_error' },
  payload_too_large: { status: 413, type: 'invalid_request_error' },
  max_cost_exceeded: { status: 402, type: 'billing_error' },
  idempotency_key_reused: { status: 409, type: 'invalid_request_error' },
  idempotency_in_progress: { status: 409, type: 'invalid_request_error' },
  rate_limited: { status: 429, type: 'rate_limit_error' },
  too_many_concurrent: { status: 429, type: 'rate_limit_error' },
  upstream_error: { status: 502, type: 'upstream_error' },
  service_unavailable: { status: 503, type: 'api_error' },
  overloaded: { status: 503, type: 'api_error' },
  upstream_timeout: { status: 504, type: 'upstream_error' },
  internal_error: { status: 500, type: 'api_error' },
};
