import { formatUsd, minBig } from '../billing/index.js';
import { GatewayError } from '../platform/errors/index.js';
import { type Admission, type AdmissionRequest, withAdmit } from '../admission/index.js';
import { holdQuote } from './hold-quote.js';

/** Where a request's own `max_cost` (nano-USD) is found by request id. */
export interface CeilingLookup {
  ceiling(requestId: string): bigint | undefined;
}

/** Ceilings of the requests in flight, set by the HTTP layer, read by admission. */
export class CeilingRegistry implements CeilingLookup {
  private readonly byRequest = new Map<string, bigint>();

  /** Sets a request's ceiling until `clear`. */
  set(requestId: string, nano: bigint): void {
    this.byRequest.set(requestId, nano);
  }

  /** The request's ceiling, if it gave one. */
  ceiling(requestId: string): bigint | undefined {
    return this.byRequest.get(requestId);
  }

  /** Forgets a request (it ended). */
  clear(requestId: string): void {
    this.byRequest.delete(requestId);
  }
}

/** The ceiling that applies: the lower of the request's `max_cost` and the key's `max_cost_per_request`. */
export function ceilingOf(request: Pick<AdmissionRequest, 'key'>, own: bigint | undefined): bigint | undefined {
  const keyLimit = request.key.limits.max_cost_per_request;
  if (own === undefined) return keyLimit;
  return keyLimit === undefined ? own : minBig(own, keyLimit);
}

/** 402 `max_cost_exceeded` for a hold above its ceiling, carrying the quote of the hold. */
export function maxCostExceeded(request: AdmissionRequest, ceiling: bigint): GatewayError {
  const quote = { ...holdQuote(request.model, request.estimate, request.worstUnits ?? {}, request.worstLines?.()), max_cost_usd: formatUsd(ceiling) };
  const hint = request.fit ? ` ${request.fit(ceiling)}` : '';
  return new GatewayError('max_cost_exceeded', `This request can cost up to $${quote.hold_usd}, above its max_cost of $${quote.max_cost_usd}.${hint}`, { param: 'max_cost', extra: { quote } });
}

/**
 * The same admission, except that a request whose worst case (the hold) is above its ceiling
 * is refused before anything is held: a request admitted under a ceiling can never be charged
 * more than it, since no charge exceeds the hold. Other members pass through.
 */
export function ceilingAdmission<A extends Admission>(inner: A, ceilings: CeilingLookup): A {
  // Not async: the inner admission's answer (a ticket, or its promise) is handed on as it is,
  // where an async wrapper returning it would cost each request turns of the microtask queue.
  const admit: Admission['admit'] = (request) => {
    const ceiling = ceilingOf(request, ceilings.ceiling(request.requestId));
    if (ceiling !== undefined && request.estimate > ceiling) return Promise.reject(maxCostExceeded(request, ceiling));
    return inner.admit(request);
  };
  return withAdmit(inner, admit);
}
