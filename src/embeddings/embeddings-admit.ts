import { costOf, formatUsd, type Nano } from '../billing/index.js';
import { type CatalogModel, resolveModel } from '../catalog/index.js';
import { GatewayError } from '../platform/errors/index.js';
import type { KeyDoc } from '../accounts/index.js';
import type { AdmissionTicket, DeferredRate } from '../admission/index.js';
import type { EmbeddingsCapability } from '../providers/index.js';
import type { EmbeddingsServiceDeps } from './embeddings-deps.js';
import { parseEmbeddingsRequest, type EmbeddingsRequest } from './embeddings-schema.js';
import { countInputTokens } from './embeddings-tokens.js';

/** Context per input when the catalog entry names none (OpenAI's embedding models take 8,192). */
export const DEFAULT_EMBEDDING_CONTEXT = 8_192;
/** The capability a model needs before a request may ask for `dimensions`. */
export const DIMENSIONS_CAPABILITY = 'DIMENSIONS';

/** A validated embeddings request that admission let in: it holds money until settled. */
export interface AdmittedEmbeddings {
  readonly requestId: string;
  readonly request: EmbeddingsRequest;
  readonly model: CatalogModel;
  readonly providerId: string;
  readonly embeddings: EmbeddingsCapability;
  readonly ticket: AdmissionTicket;
  /** Exact token count of the input: what the hold covers, and the charge when the upstream reports none. */
  readonly tokens: number;
}

/** `dimensions` only on models that can shorten their vectors, and never beyond their length. */
function checkDimensions(request: EmbeddingsRequest, model: CatalogModel): void {
  if (request.dimensions === undefined) return;
  if (!model.doc.capabilities.includes(DIMENSIONS_CAPABILITY)) {
    throw new GatewayError('model_capability_missing', `Model '${model.id}' returns vectors of a fixed length; leave out dimensions.`, { param: 'dimensions' });
  }
  const most = model.doc.dimensions;
  if (typeof most === 'number' && request.dimensions > most) {
    throw new GatewayError('invalid_request', `dimensions: model '${model.id}' returns at most ${most} dimensions.`, { param: 'dimensions' });
  }
}

function describeFit(model: CatalogModel, tokens: number, room: Nano): string {
  const cost = costOf(model, { prompt: tokens });
  const price = model.prices.prompt ?? 0n;
  const fits = price > 0n ? Number(((room > 0n ? room : 0n) * 10n ** 9n) / price) : tokens;
  return `This input has ${tokens} tokens and costs $${formatUsd(cost)}; $${formatUsd(room > 0n ? room : 0n)} left covers about ${fits} tokens.`;
}

/**
 * Validates, resolves the model and its provider, counts the input exactly and admits the
 * request with a hold of that count at the model's price. Order (DESIGN §4.4): body → model
 * (404/400) → allowlist and free tier (403) → provider (503) → count (400 for an input over
 * the context) → caps (403) → balance (402). Nothing is held when a step before admission
 * fails; a pending RPM check (`rate`) runs inside admission's script, as for chat.
 */
export async function admitEmbeddings(deps: EmbeddingsServiceDeps, key: KeyDoc, requestId: string, rawBody: unknown, rate?: DeferredRate): Promise<AdmittedEmbeddings> {
  const request = parseEmbeddingsRequest(rawBody);
  const model = resolveModel(deps.catalog, request.model, 'embedding');
  checkDimensions(request, model);
  const authorized = await deps.admission.authorize(key, model);
  const providerId = model.doc.provider;
  const embeddings = deps.providers.get(providerId).embeddings;
  if (embeddings === undefined) throw new GatewayError('upstream_error', `Provider "${providerId}" cannot serve embedding models`);
  const counts = await countInputTokens(request.input, model.doc.context_length ?? DEFAULT_EMBEDDING_CONTEXT);
  const tokens = counts.reduce((a, b) => a + b, 0);
  const estimate = costOf(model, { prompt: tokens });
  const ticket = await deps.admission.admit({ requestId, key, model, authorized, estimate, fit: (room) => describeFit(model, tokens, room), worstUnits: { prompt: tokens }, stream: false, rate, tokens });
  return { requestId, request, model, providerId, embeddings, ticket, tokens };
}
