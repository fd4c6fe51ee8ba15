import { costOf, toUsdNumber } from '../billing/index.js';
import { toGatewayError } from '../platform/errors/index.js';
import type { EmbeddingsResult } from '../providers/index.js';
import type { AdmittedEmbeddings } from './embeddings-admit.js';
import type { EmbeddingsServiceDeps } from './embeddings-deps.js';
import { MAX_REQUEST_TOKENS } from './embeddings-tokens.js';
import { embeddingsJson } from './embeddings-wire.js';

/** Most prompt tokens recorded for one request: ten times the most a request may hold. */
const PLAUSIBLE_TOKENS = 10 * MAX_REQUEST_TOKENS;

async function callUpstream(deps: EmbeddingsServiceDeps, admitted: AdmittedEmbeddings, signal: AbortSignal): Promise<EmbeddingsResult> {
  const { request, model } = admitted;
  const started = performance.now();
  const seconds = (): number => (performance.now() - started) / 1000;
  try {
    const result = await admitted.embeddings.create({
      upstreamModel: model.doc.upstream_model,
      input: request.input.wire,
      ...(request.dimensions === undefined ? {} : { dimensions: request.dimensions }),
      ...(request.user === undefined ? {} : { user: request.user }),
      signal,
    });
    deps.metrics?.upstream(admitted.providerId, 'complete', seconds(), true);
    return result;
  } catch (err) {
    deps.metrics?.upstream(admitted.providerId, 'complete', seconds(), false);
    throw toGatewayError(err);
  }
}

/**
 * Logs an upstream count above the hold: the client is charged the hold at most, and the
 * ledger records the rest as absorbed (an upstream with another tokenizer counts more).
 */
function noteExcess(deps: EmbeddingsServiceDeps, admitted: AdmittedEmbeddings, reported: number): void {
  if (reported <= admitted.tokens) return;
  deps.log.warn({ request_id: admitted.requestId, model: admitted.model.id, reported, held: admitted.tokens }, 'embeddings upstream reported more prompt tokens than were held; the excess is absorbed');
}

/**
 * Runs an admitted embeddings request: calls the provider, charges durably (the upstream's
 * `prompt_tokens`, or the exact count when it reports none; never above the hold), and only
 * then returns the body (UTF-8 JSON, see `embeddingsJson`) that reports the cost. A failed or
 * aborted call charges nothing and frees the hold (the caller releases the ticket in every
 * case; after a charge that is a no-op).
 */
export async function createEmbeddings(deps: EmbeddingsServiceDeps, admitted: AdmittedEmbeddings, signal: AbortSignal): Promise<Buffer> {
  const result = await callUpstream(deps, admitted, signal);
  // The upstream's count when it gives one (what it billed), else the exact count held; an
  // implausible count is recorded at the most any request can have (the ledger is int64).
  const tokens = Math.min(result.promptTokens ?? admitted.tokens, PLAUSIBLE_TOKENS);
  noteExcess(deps, admitted, tokens);
  const units = { prompt: tokens };
  const cost = costOf(admitted.model, units);
  const outcome = await admitted.ticket.settle(cost, units);
  deps.metrics?.charged('embeddings', outcome.charged);
  // What the client is billed: the metered cost, never above the hold (the ticket caps it).
  return await embeddingsJson(admitted.model.id, result, admitted.request.encodingFormat, { promptTokens: tokens, cost: toUsdNumber(outcome.cost) });
}
