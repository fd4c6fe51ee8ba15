import { Counter, type Registry } from 'prom-client';
import { toUsdNumber } from '../billing/index.js';
import type { OutcomeObserver, RequestOutcome } from '../ledger/index.js';

/** Error codes that mean the upstream failed (not the client or the gateway). */
const UPSTREAM_CODES: ReadonlySet<string> = new Set(['upstream_error', 'upstream_timeout']);

/** True for a count a Prometheus counter can take. */
function countable(n: number | undefined): n is number {
  return n !== undefined && Number.isFinite(n) && n > 0;
}

/**
 * Per-request outcome metrics (DESIGN §13): requests, refusals, tokens, media units, spend and
 * upstream errors. Labels never carry key or account ids, and model/provider only take
 * catalog ids (anything else arrives here as `other`), so series stay bounded.
 */
export class RequestMetrics implements OutcomeObserver {
  private readonly requests: Counter<'endpoint' | 'model' | 'provider' | 'status'>;
  private readonly refusals: Counter<'endpoint' | 'code'>;
  private readonly tokens: Counter<'model' | 'provider' | 'direction'>;
  private readonly media: Counter<'model' | 'provider' | 'unit'>;
  private readonly spend: Counter<'model' | 'provider'>;
  private readonly upstreamErrors: Counter<'provider' | 'code'>;
  private readonly dropped: Counter;

  constructor(registry: Registry) {
    const registers = [registry];
    this.requests = new Counter({ name: 'farebox_requests_total', help: 'Inference requests by endpoint, model, provider and HTTP status', labelNames: ['endpoint', 'model', 'provider', 'status'], registers });
    this.refusals = new Counter({ name: 'farebox_refusals_total', help: 'Inference requests answered with an error, by error code', labelNames: ['endpoint', 'code'], registers });
    this.tokens = new Counter({ name: 'farebox_tokens_total', help: 'Billed tokens by model, provider and direction', labelNames: ['model', 'provider', 'direction'], registers });
    this.media = new Counter({ name: 'farebox_media_units_total', help: 'Billed images and OCR pages', labelNames: ['model', 'provider', 'unit'], registers });
    this.spend = new Counter({ name: 'farebox_spend_usd_total', help: 'Metered cost in USD by model and provider', labelNames: ['model', 'provider'], registers });
    this.upstreamErrors = new Counter({ name: 'farebox_upstream_errors_total', help: 'Requests failed by their upstream, by provider and error code', labelNames: ['provider', 'code'], registers });
    this.dropped = new Counter({ name: 'farebox_request_records_dropped_total', help: 'Request records not stored (buffer full or MongoDB unavailable)', registers });
  }

  /** Counts one finished inference request. */
  finished(o: RequestOutcome): void {
    const { model, provider } = o;
    this.requests.inc({ endpoint: o.endpoint, model, provider, status: String(o.status) });
    if (o.code !== undefined) {
      this.refusals.inc({ endpoint: o.endpoint, code: o.code });
      if (UPSTREAM_CODES.has(o.code)) this.upstreamErrors.inc({ provider, code: o.code });
    }
    const { input_tokens: input, output_tokens: output, images, pages } = o.usage;
    // Counters only go up: a count an upstream got wrong (negative, not finite) is left out.
    if (countable(input)) this.tokens.inc({ model, provider, direction: 'input' }, input);
    if (countable(output)) this.tokens.inc({ model, provider, direction: 'output' }, output);
    if (countable(images)) this.media.inc({ model, provider, unit: 'image' }, images);
    if (countable(pages)) this.media.inc({ model, provider, unit: 'page' }, pages);
    if (o.cost > 0n) this.spend.inc({ model, provider }, toUsdNumber(o.cost));
  }

  /** Records that could not be stored. */
  droppedRecords(count: number): void {
    if (count > 0) this.dropped.inc(count);
  }
}
