import { toUsdNumber } from '../../billing/index.js';
import type { RequestRecordDoc } from './request-record-types.js';

/** A request record as the API shows it (USD numbers, ISO dates). */
export function toRecordView(r: RequestRecordDoc) {
  return {
    id: r._id,
    account_id: r.account_id,
    key_id: r.key_id,
    end_user: r.end_user ?? null,
    endpoint: r.endpoint,
    model: r.model,
    provider: r.provider,
    stream: r.stream,
    status: r.status,
    error_code: r.error_code,
    usage: r.usage,
    cost_usd: toUsdNumber(r.cost),
    cost_details: r.cost_details ?? [],
    price_version: r.price_version ?? null,
    latency_ms: r.latency_ms,
    created_at: r.created_at.toISOString(),
    attempts: r.attempts ?? [],
  };
}
